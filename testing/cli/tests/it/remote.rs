//! `baton test --remote` (and `--compare`) against `baton serve` started in this process.

use std::path::Path;
use std::process::Command;

fn baton(args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("baton runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_agent_template_runs_and_compares_on_a_remote_endpoint() {
    let server = baton_serve::Server::start(baton_serve::ServeConfig::default().port(0)).unwrap();
    let url = server.url();
    let (code, out, err) = baton(&[
        "test",
        "templates/ai-agent-tool-loop",
        "--remote",
        &url,
        "--assert-timeout",
        "2s",
        "--compare",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("3 cases compared with baton, 0 differ"),
        "{out}"
    );
    assert!(out.ends_with("3 passed, 0 failed\n"), "{out}");
    let (code, out, _) = baton(&[
        "test",
        "fixtures/cpt/failing/failing.test.json",
        "--remote",
        &url,
        "--assert-timeout",
        "100ms",
        "--json",
    ]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["failed"], 8, "{json}");
}

#[test]
fn remote_options_are_checked() {
    let (code, _, err) = baton(&[
        "test",
        "templates",
        "--remote",
        "http://127.0.0.1:9",
        "--auth",
        "oauth",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("CAMUNDA_OAUTH_URL is not set") || err.contains("CAMUNDA_"),
        "{err}"
    );
    let (code, _, err) = baton(&[
        "test",
        "templates",
        "--remote",
        "http://127.0.0.1:9",
        "--assert-timeout",
        "soon",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("expected a duration such as 10s or 500ms"),
        "{err}"
    );
    let (code, _, err) = baton(&[
        "test",
        "templates",
        "--remote",
        "http://127.0.0.1:9",
        "--drift",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = baton(&["test", "templates", "--remote", "http://127.0.0.1:9"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("does not answer as Camunda's REST API v2"),
        "{err}"
    );
}
