//! The runner against a fake endpoint (a std TcpListener) that answers late, slowly, wrongly
//! or not at all: it never hangs past its timeouts and never panics, and what it could not
//! check it says.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use baton_cpt::Outcome;
use baton_remote::{Auth, Client, RemoteError, RemoteOptions, run_remote};

use crate::support::root;

/// How the fake answers one request.
enum Reply {
    Json(u16, String),
    /// Reads the request and never answers (until the client gives up).
    Hang,
    /// Closes the connection without a word.
    Close,
    /// Half a status line, then the connection closes.
    Garbage,
}

type Handler = dyn Fn(&str, &str, &str) -> Reply + Send + Sync;

/// Serves `handler` (method, path, body) on a free port of 127.0.0.1.
fn fake(handler: Arc<Handler>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let handler = handler.clone();
            std::thread::spawn(move || {
                let _ = serve_one(stream, &*handler);
            });
        }
    });
    format!("http://{addr}")
}

fn serve_one(stream: TcpStream, handler: &Handler) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_owned();
        let path = parts.next().unwrap_or_default().to_owned();
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        match handler(&method, &path, &String::from_utf8_lossy(&body)) {
            Reply::Json(status, text) => {
                write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
                    text.len()
                )?;
            }
            Reply::Hang => {
                std::thread::sleep(Duration::from_secs(5));
                return Ok(());
            }
            Reply::Close => return Ok(()),
            Reply::Garbage => {
                stream.write_all(b"HTTP/1.1 2")?;
                return Ok(());
            }
        }
    }
}

/// The answers a case needs up to its first search; `search` answers the searches.
fn endpoint(search: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Arc<Handler> {
    let searches = Arc::new(AtomicUsize::new(0));
    Arc::new(move |method: &str, path: &str, _body: &str| {
        match (method, path) {
        ("GET", "/v2/topology") => Reply::Json(200, "{}".into()),
        ("POST", "/v2/deployments") => Reply::Json(
            200,
            r#"{"deploymentKey":"1","tenantId":"<default>","deployments":[]}"#.into(),
        ),
        ("POST", "/v2/process-instances") => Reply::Json(
            200,
            r#"{"processDefinitionId":"order","processDefinitionVersion":1,"tenantId":"<default>","variables":{},"processDefinitionKey":"2","processInstanceKey":"3","tags":[],"businessId":null}"#.into(),
        ),
        ("POST", "/v2/process-instances/search") => search(searches.fetch_add(1, Ordering::SeqCst)),
        ("POST", p) if p.ends_with("/cancellation") || p.ends_with("/deletion") => {
            Reply::Json(204, String::new())
        }
        _ => Reply::Json(404, "no such route".into()),
    }
    })
}

const ACTIVE: &str = r#"{"items":[{"processDefinitionId":"order","processDefinitionName":null,"processDefinitionVersion":1,"processDefinitionVersionTag":null,"startDate":"2026-01-01T00:00:00.000Z","endDate":null,"state":"ACTIVE","hasIncident":false,"tenantId":"<default>","processInstanceKey":"3","processDefinitionKey":"2","parentProcessInstanceKey":null,"parentElementInstanceKey":null,"rootProcessInstanceKey":null,"tags":[],"businessId":null,"suspendedDate":null}],"page":{"totalItems":1,"hasMoreTotalItems":false,"startCursor":null,"endCursor":null}}"#;
const EMPTY: &str = r#"{"items":[],"page":{"totalItems":0,"hasMoreTotalItems":false,"startCursor":null,"endCursor":null}}"#;

/// A folder with the order process and one case: create, assert active (and `extra`).
fn case_dir(name: &str, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baton-remote-fake-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root().join("fixtures/cpt/failing/order.bpmn"),
        dir.join("order.bpmn"),
    )
    .unwrap();
    let test = format!(
        r#"{{"testCases": [{{"name": "{name}", "instructions": [
            {{"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{"processDefinitionId": "order"}}}}{extra},
            {{"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {{"processDefinitionId": "order"}}, "state": "IS_ACTIVE"}}
        ]}}]}}"#
    );
    std::fs::write(dir.join("case.test.json"), test).unwrap();
    dir
}

const ASSERT_TIMEOUT: Duration = Duration::from_millis(300);
const REQUEST_TIMEOUT: Duration = Duration::from_millis(400);

fn run_against(url: &str, dir: &PathBuf) -> Result<baton_cpt::Report, RemoteError> {
    let client = Client::new(url, None, Auth::None, REQUEST_TIMEOUT);
    let options = RemoteOptions {
        assert_timeout: ASSERT_TIMEOUT,
        ..RemoteOptions::default()
    };
    run_remote(&client, &[dir], &options, &mut |_| {})
}

#[test]
fn a_late_endpoint_is_polled_until_the_instance_shows() {
    // The first searches see nothing, as a cluster's read side lags behind its commands.
    let url = fake(endpoint(|n| {
        std::thread::sleep(Duration::from_millis(5));
        Reply::Json(200, if n < 4 { EMPTY } else { ACTIVE }.into())
    }));
    let report = run_against(&url, &case_dir("late", "")).unwrap();
    assert!(report.cases[0].passed(), "{:?}", report.cases[0].outcome);
}

#[test]
fn broken_answers_fail_the_case_within_its_timeouts() {
    type Search = fn(usize) -> Reply;
    let broken: Vec<(&str, Search, &str)> = vec![
        (
            "garbage-json",
            |_| Reply::Json(200, "not json".into()),
            "does not read",
        ),
        (
            "server-error",
            |_| {
                Reply::Json(
                    500,
                    r#"{"type":"about:blank","title":"INTERNAL","status":500,"detail":"boom","instance":"/v2/process-instances/search"}"#.into(),
                )
            },
            "INTERNAL: boom",
        ),
        ("hang", |_| Reply::Hang, "no answer"),
        ("close", |_| Reply::Close, "no answer"),
        ("half-status-line", |_| Reply::Garbage, "no answer"),
        (
            "never-there",
            |_| Reply::Json(200, EMPTY.into()),
            "none was created",
        ),
    ];
    for (name, search, says) in broken {
        let url = fake(endpoint(search));
        let start = Instant::now();
        let report = run_against(&url, &case_dir(name, "")).unwrap();
        let took = start.elapsed();
        let Outcome::Failed(f) = &report.cases[0].outcome else {
            panic!("{name}: {:?}", report.cases[0].outcome)
        };
        assert!(f.message.contains(says), "{name}: {}", f.message);
        // The poll stops at the assert timeout; a request in flight then at its own timeout.
        assert!(
            took < ASSERT_TIMEOUT + REQUEST_TIMEOUT * 2 + Duration::from_millis(500),
            "{name}: {took:?}"
        );
    }
}

#[test]
fn an_endpoint_whose_clock_cannot_move_skips_the_case() {
    let url = fake(endpoint(|_| Reply::Json(200, ACTIVE.into())));
    let report = run_against(
        &url,
        &case_dir(
            "clock",
            r#", {"type": "INCREASE_TIME", "duration": "PT1H"}"#,
        ),
    )
    .unwrap();
    let Outcome::Skipped { reason } = &report.cases[0].outcome else {
        panic!("{:?}", report.cases[0].outcome)
    };
    assert!(reason.contains("clock cannot be moved"), "{reason}");
}

#[test]
fn an_endpoint_that_does_not_answer_stops_the_run() {
    // A port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let start = Instant::now();
    let e = run_against(&format!("http://127.0.0.1:{port}"), &case_dir("down", "")).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not answer as Camunda's REST API v2"),
        "{e}"
    );
    let hanging = fake(Arc::new(|_: &str, _: &str, _: &str| Reply::Hang));
    let e = run_against(&hanging, &case_dir("hung", "")).unwrap_err();
    assert!(e.to_string().contains("no answer"), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_job_is_found_by_the_job_search_among_the_cases_own_instances() {
    // A shared cluster (no purge): the job search also returns another run's job, older.
    let completed = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = completed.clone();
    let job = |key: &str, instance: &str| {
        format!(
            r#"{{"type":"payment","elementId":"charge","processDefinitionId":"order","state":"CREATED","kind":"BPMN_ELEMENT","retries":3,"jobKey":"{key}","processInstanceKey":"{instance}","elementInstanceKey":"8"}}"#
        )
    };
    let jobs = format!(
        r#"{{"items":[{},{}],"page":{{"totalItems":2,"hasMoreTotalItems":false,"startCursor":null,"endCursor":null}}}}"#,
        job("5", "99"),
        job("7", "3")
    );
    let base = endpoint(|_| Reply::Json(200, EMPTY.into()));
    let url = fake(Arc::new(
        move |method: &str, path: &str, body: &str| match (method, path) {
            ("POST", "/v2/jobs/search") => Reply::Json(200, jobs.clone()),
            ("POST", p) if p.starts_with("/v2/jobs/") && p.ends_with("/completion") => {
                seen.lock().unwrap().push(format!("{p} {body}"));
                Reply::Json(204, String::new())
            }
            _ => base(method, path, body),
        },
    ));
    let dir = case_dir(
        "job-search",
        r#", {"type": "COMPLETE_JOB", "jobSelector": {"elementId": "charge"}, "variables": {"paid": true}}"#,
    );
    // Only the job: the case's last instruction (the assertion) is dropped.
    let test = std::fs::read_to_string(dir.join("case.test.json")).unwrap();
    let cut = test
        .rfind(",\n            {\"type\": \"ASSERT_PROCESS_INSTANCE\"")
        .unwrap();
    std::fs::write(
        dir.join("case.test.json"),
        format!("{}\n        ]}}]}}", &test[..cut]),
    )
    .unwrap();
    let report = run_against(&url, &dir).unwrap();
    assert!(report.cases[0].passed(), "{:?}", report.cases[0].outcome);
    assert_eq!(
        *completed.lock().unwrap(),
        vec![r#"/v2/jobs/7/completion {"variables":{"paid":true}}"#.to_owned()]
    );
}
