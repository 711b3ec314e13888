//! Record, replay and drift through `baton test` on JSON test files: `--record --agent-command`,
//! replay that checks each request, `--drift`, and the agent command's failures.

use std::path::{Path, PathBuf};
use std::process::Command;

use baton_testing::agent::recording::Recording;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `baton`; returns the exit code and what it printed, with `dir` written as `[dir]`.
fn baton(args: &[&str], dir: &Path) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    let text = text.replace(&dir.display().to_string(), "[dir]");
    (output.status.code().unwrap_or(-1), text)
}

/// The model of the worked example, as an agent command: a turn per model call.
const MODEL: &str = r#"input=$(cat)
case "$input" in
  *'"modelCall":1,'*) echo '{"toolCalls": [{"name": "lookup-order", "arguments": {"orderId": "1042"}}, {"name": "search-kb", "arguments": {"query": "damaged item return"}}]}' ;;
  *'"modelCall":2,'*) echo '{"toolCalls": [{"name": "create-ticket", "arguments": {"summary": "Order 1042 arrived damaged"}}]}' ;;
  *'"modelCall":3,'*) echo '{"responseJson": {"answer": "Ticket T-77 is open.", "resolved": true}}' ;;
  *) echo "no answer for this call" >&2; exit 3 ;;
esac
"#;

const ORDER: &str = r#"{ "id": "1042", "status": "delivered", "damaged": true }"#;
const BROKEN: &str = "My order 1042 arrived broken.";

/// The worked example's test file; `settings` are more fields of MOCK_AI_AGENT.
fn test_file(order: &str, message: &str, settings: &str, order_mock: Option<&str>) -> String {
    let order_mock = order_mock.map_or_else(
        || {
            format!(
                r#"{{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup", "variables": {{ "order": {order} }} }}"#
            )
        },
        str::to_string,
    );
    format!(
        r#"{{ "testCases": [ {{ "name": "damaged order", "instructions": [
  {order_mock},
  {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "kb-search", "variables": {{ "articles": ["Returns and damaged items"] }} }},
  {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "ticket-create", "variables": {{ "ticketId": "T-77" }} }},
  {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "email-send", "variables": {{}} }},
  {{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "cassette": "cassettes/damaged-order.json"{settings} }},
  {{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }}, "variables": {{ "customerMessage": "{message}" }} }}
] }} ] }}"#
    )
}

/// A folder with the template's process (`xml`), a test file and the model script.
struct Suite(PathBuf);

impl Suite {
    fn new(name: &str, xml: &str, test: &str) -> Suite {
        let dir =
            std::env::temp_dir().join(format!("baton-replay-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("cassettes")).unwrap();
        std::fs::write(dir.join("ai-agent-tool-loop.bpmn"), xml).unwrap();
        std::fs::write(dir.join("agent.test.json"), test).unwrap();
        std::fs::write(dir.join("model.sh"), MODEL).unwrap();
        Suite(dir)
    }

    fn cassette(&self) -> PathBuf {
        self.0.join("cassettes/damaged-order.json")
    }

    fn run(&self, flags: &[&str]) -> (i32, String) {
        let dir = self.0.display().to_string();
        let mut args = vec!["test", dir.as_str(), "--no-coverage"];
        args.extend_from_slice(flags);
        baton(&args, &self.0)
    }

    fn record(&self, command: &str) -> (i32, String) {
        self.run(&["--record", "--agent-command", command])
    }

    fn model(&self) -> String {
        format!("sh {}", self.0.join("model.sh").display())
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn template_xml() -> String {
    std::fs::read_to_string(root().join("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"))
        .unwrap()
}

/// A suite whose cassette was recorded against the template, then given `xml` and `test` to
/// replay.
fn recorded_then(name: &str, xml: &str, test: &str) -> Suite {
    let suite = Suite::new(name, &template_xml(), &test_file(ORDER, BROKEN, "", None));
    let (code, output) = suite.record(&suite.model());
    assert_eq!(code, 0, "{output}");
    std::fs::write(suite.0.join("ai-agent-tool-loop.bpmn"), xml).unwrap();
    std::fs::write(suite.0.join("agent.test.json"), test).unwrap();
    suite
}

/// What a failed case says, without the run explained after it.
fn failure(output: &str) -> String {
    let start = output.find("FAILED").expect("a failed case");
    let text = &output[start..];
    let end = text.find("\n\n").unwrap_or(text.len());
    text[..end].to_string()
}

#[test]
fn baton_test_records_then_replays_and_records_the_same_bytes() {
    let suite = Suite::new(
        "round-trip",
        &template_xml(),
        &test_file(ORDER, BROKEN, "", None),
    );
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 1, "nothing to replay yet: {output}");
    let (code, recorded) = suite.record(&suite.model());
    assert_eq!(code, 0, "{recorded}");
    let first = std::fs::read_to_string(suite.cassette()).unwrap();
    let (code, output) = suite.record(&suite.model());
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        first,
        std::fs::read_to_string(suite.cassette()).unwrap(),
        "recorded again with the same model: the same bytes"
    );
    let recording = Recording::read(suite.cassette()).unwrap();
    assert_eq!(recording.calls.len(), 3);
    assert!(recording.calls.iter().all(|c| c.request.is_some()));
    let (code, replayed) = suite.run(&[]);
    assert_eq!(code, 0, "{replayed}");
    for matching in ["by-request", "turns-only"] {
        let settings = format!(r#", "match": "{matching}""#);
        std::fs::write(
            suite.0.join("agent.test.json"),
            test_file(ORDER, BROKEN, &settings, None),
        )
        .unwrap();
        let (code, output) = suite.run(&[]);
        assert_eq!(code, 0, "{matching}: {output}");
    }
    insta::assert_snapshot!(format!(
        "{}\n---\n{recorded}\n---\n{replayed}",
        failure(&output_of_missing(&suite))
    ));
}

/// The failure of a replay without a cassette.
fn output_of_missing(suite: &Suite) -> String {
    std::fs::remove_file(suite.cassette()).unwrap();
    std::fs::write(
        suite.0.join("agent.test.json"),
        test_file(ORDER, BROKEN, "", None),
    )
    .unwrap();
    suite.run(&[]).1
}

/// Each drift cause of the issue, through a JSON test file: recorded against the template,
/// replayed against a changed process or test.
#[test]
fn baton_test_names_each_drift_cause() {
    let xml = template_xml();
    let test = |order: &str, message: &str| test_file(order, message, "", None);
    let unchanged = test(ORDER, BROKEN);
    let cases: Vec<(&str, String, String)> = vec![
        (
            "tool-result",
            xml.clone(),
            test(r#"{ "id": "1042", "status": "shipped", "damaged": true }"#, BROKEN),
        ),
        ("user-prompt", xml.clone(), test(ORDER, "Where is order 7?")),
        (
            "system-prompt",
            xml.replace(
                "Answer with a short, friendly message",
                "Answer with a long message",
            ),
            unchanged.clone(),
        ),
        (
            "tool-added",
            xml.replace(
                "    </bpmn:adHocSubProcess>",
                r#"      <bpmn:serviceTask id="issue-refund" name="Issue refund">
        <bpmn:documentation>Refunds an order.</bpmn:documentation>
        <bpmn:extensionElements>
          <zeebe:taskDefinition type="refund" />
        </bpmn:extensionElements>
      </bpmn:serviceTask>
    </bpmn:adHocSubProcess>"#,
            ),
            unchanged.clone(),
        ),
        (
            "tool-removed",
            {
                let start = xml.find(r#"<bpmn:serviceTask id="search-kb""#).unwrap();
                let end = start
                    + xml[start..].find("</bpmn:serviceTask>").unwrap()
                    + "</bpmn:serviceTask>".len();
                format!("{}{}", &xml[..start], &xml[end..])
            },
            unchanged.clone(),
        ),
        (
            "tool-renamed",
            xml.replace(r#"id="create-ticket""#, r#"id="open-ticket""#)
                .replace(
                    r#"bpmnElement="create-ticket""#,
                    r#"bpmnElement="open-ticket""#,
                ),
            unchanged.clone(),
        ),
        (
            "parameter-added",
            xml.replace(
                r#"target="orderId" />"#,
                r#"target="orderId" />
            <zeebe:input source="=fromAi(toolCall.email, &#34;The customer's e-mail&#34;, &#34;string&#34;)" target="email" />"#,
            ),
            unchanged.clone(),
        ),
        (
            "parameter-retyped",
            xml.replace(
                "=fromAi(toolCall.orderId, &#34;The order number, for example 1042&#34;, &#34;string&#34;)",
                "=fromAi(toolCall.orderId, &#34;The order number, for example 1042&#34;, &#34;number&#34;)",
            ),
            unchanged.clone(),
        ),
        (
            "limits",
            xml.replace(
                r#"source="=10" target="data.limits.maxModelCalls""#,
                r#"source="=5" target="data.limits.maxModelCalls""#,
            ),
            unchanged.clone(),
        ),
        (
            "another-path",
            xml.clone(),
            test_file(
                ORDER,
                BROKEN,
                "",
                Some(
                    r#"{ "type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "order-lookup", "errorCode": "ORDER_SERVICE_DOWN" }"#,
                ),
            ),
        ),
    ];
    let mut outputs = Vec::new();
    for (name, xml, test) in &cases {
        let suite = recorded_then(name, xml, test);
        let (code, output) = suite.run(&[]);
        assert_eq!(code, 1, "{name}: {output}");
        outputs.push(format!("{name}:\n{}", failure(&output)));
    }
    // A cassette cut after call 2: the run asks a call it does not have.
    let suite = recorded_then("extra-call", &xml, &unchanged);
    let mut cut = Recording::read(suite.cassette()).unwrap();
    cut.calls.truncate(2);
    cut.write(suite.cassette()).unwrap();
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 1, "{output}");
    outputs.push(format!("extra-call:\n{}", failure(&output)));
    insta::assert_snapshot!(outputs.join("\n---\n"));
}

/// `--drift` replays on through a changed tool result and prints how the run left the
/// cassette; an unchanged run says it followed it.
#[test]
fn baton_test_drift_reports_how_each_case_left_its_cassette() {
    let changed = test_file(
        r#"{ "id": "1042", "status": "shipped", "damaged": true }"#,
        BROKEN,
        "",
        None,
    );
    let suite = recorded_then("drift", &template_xml(), &changed);
    let (code, drifted) = suite.run(&["--drift"]);
    assert_eq!(code, 0, "{drifted}");
    std::fs::write(
        suite.0.join("agent.test.json"),
        test_file(ORDER, BROKEN, "", None),
    )
    .unwrap();
    let (code, followed) = suite.run(&["--drift"]);
    assert_eq!(code, 0, "{followed}");
    // The order lookup throws: the run takes another path and ends elsewhere.
    std::fs::write(
        suite.0.join("agent.test.json"),
        test_file(
            ORDER,
            BROKEN,
            "",
            Some(
                r#"{ "type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "order-lookup", "errorCode": "ORDER_SERVICE_DOWN" }"#,
            ),
        ),
    )
    .unwrap();
    let (code, another_path) = suite.run(&["--drift"]);
    assert_eq!(code, 0, "{another_path}");
    // A live model (the agent command) that asks for another ticket summary.
    std::fs::write(
        suite.0.join("agent.test.json"),
        test_file(ORDER, BROKEN, "", None),
    )
    .unwrap();
    let live = suite.0.join("live.sh");
    std::fs::write(
        &live,
        MODEL.replace(
            "Order 1042 arrived damaged",
            "Damaged order 1042: replace it",
        ),
    )
    .unwrap();
    let live = format!("sh {}", live.display());
    let (code, other_arguments) = suite.run(&["--drift", "--agent-command", &live]);
    assert_eq!(code, 0, "{other_arguments}");
    insta::assert_snapshot!(format!(
        "{drifted}\n---\n{followed}\n---\n{another_path}\n---\n{other_arguments}"
    ));
}

/// An agent command that fails, prints no JSON or hangs: a clear error naming the command and
/// the call, and the cassette holds the calls before it (never half a file).
#[test]
fn baton_test_record_refuses_a_failing_agent_command() {
    let suite = Suite::new(
        "command",
        &template_xml(),
        &test_file(ORDER, BROKEN, "", None),
    );
    let script = |name: &str, body: &str| {
        let path = suite.0.join(name);
        std::fs::write(&path, body).unwrap();
        format!("sh {}", path.display())
    };
    let fails = script(
        "fails.sh",
        "cat > /dev/null\necho 'model unavailable: 503' >&2\nexit 7\n",
    );
    let no_json = script(
        "no-json.sh",
        "cat > /dev/null\necho 'Sure! Here is my answer.'\n",
    );
    let hangs_at_2 = script(
        "hangs.sh",
        &MODEL.replace(
            r#"  *'"modelCall":2,'*) echo"#,
            // Not `exec`: the hang is a child of the shell, as `python3 model.py` is of
            // `sh -c`, and it holds the output open; the timeout stops it too.
            r#"  *'"modelCall":2,'*) sleep 30; echo"#,
        ),
    );
    let mut outputs = Vec::new();
    for command in [&fails, &no_json] {
        let (code, output) = suite.record(command);
        assert_eq!(code, 1, "{output}");
        assert!(!suite.cassette().exists(), "nothing recorded: no file");
        outputs.push(failure(&output));
    }
    let started = std::time::Instant::now();
    let (code, output) = suite.run(&[
        "--record",
        "--agent-command",
        &hangs_at_2,
        "--agent-timeout",
        "0.5",
    ]);
    assert_eq!(code, 1, "{output}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "stopped at the timeout, not when the hang ends: {:?}",
        started.elapsed()
    );
    outputs.push(failure(&output));
    let recording = Recording::read(suite.cassette()).expect("a valid cassette");
    assert_eq!(recording.calls.len(), 1, "the call before the hang");
    let (code, output) = baton(&["test", "--record", "fixtures"], &suite.0);
    assert_eq!(code, 2, "{output}");
    outputs.push(output.lines().take(2).collect::<Vec<_>>().join("\n"));
    insta::assert_snapshot!(outputs.join("\n---\n"));
}

/// A timeout for the agent command that is no positive number of seconds, or more than can be
/// counted, is refused before any case runs.
#[test]
fn a_bad_agent_timeout_is_refused() {
    let suite = Suite::new(
        "timeout",
        &template_xml(),
        &test_file(ORDER, BROKEN, "", None),
    );
    let command = suite.model();
    let outputs: Vec<String> = ["0", "-1", "nan", "inf", "1e30"]
        .into_iter()
        .map(|timeout| {
            let (code, output) = suite.run(&[
                "--record",
                "--agent-command",
                &command,
                "--agent-timeout",
                timeout,
            ]);
            assert_eq!(code, 1, "{output}");
            assert!(!suite.cassette().exists(), "nothing recorded");
            output.trim().to_string()
        })
        .collect();
    insta::assert_snapshot!(outputs.join("\n"), @"
    baton test: --agent-timeout must be a positive number of seconds, got 0
    baton test: --agent-timeout must be a positive number of seconds, got -1
    baton test: --agent-timeout must be a positive number of seconds, got NaN
    baton test: --agent-timeout must be a positive number of seconds, got inf
    baton test: --agent-timeout 1e30 is more seconds than can be counted (at most 18446744073709551615)
    ");
}

/// MOCK_AI_AGENT's cassette settings are read with their path.
#[test]
fn mock_ai_agent_cassette_settings_are_checked() {
    let mut outputs = Vec::new();
    for (name, settings) in [
        ("mode", r#", "mode": "sometimes""#),
        ("match", r#", "match": "loosely""#),
        (
            "regex",
            r#", "replace": [ { "pattern": "user-(\\d+", "with": "user-N" } ]"#,
        ),
        ("pointer", r#", "ignore": [ "toolCallResults/0" ]"#),
    ] {
        let suite = Suite::new(
            name,
            &template_xml(),
            &test_file(ORDER, BROKEN, settings, None),
        );
        let (code, output) = suite.run(&[]);
        assert_eq!(code, 1, "{output}");
        outputs.push(failure(&output));
    }
    let turns = r#"{ "testCases": [ { "name": "turns", "instructions": [
        { "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [], "mode": "record" } ] } ] }"#;
    let suite = Suite::new("turns", &template_xml(), turns);
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 1, "{output}");
    outputs.push(failure(&output));
    insta::assert_snapshot!(outputs.join("\n---\n"));
}

/// A value the test declares volatile does not fail the replay: a JSON pointer ignored in the
/// results and in the conversation, or a regex replacement.
#[test]
fn a_tests_own_rules_keep_a_changed_value_from_matching() {
    let shipped = r#"{ "id": "1042", "status": "shipped", "damaged": true }"#;
    let suite = recorded_then(
        "rules",
        &template_xml(),
        &test_file(shipped, BROKEN, "", None),
    );
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 1, "without rules the changed status fails: {output}");
    for settings in [
        r#", "ignore": ["/toolCallResults/*/content/status", "/messages/*/results/*/content/*/content/status"]"#,
        r#", "replace": [ { "pattern": "^(delivered|shipped)$", "with": "some status" } ]"#,
    ] {
        std::fs::write(
            suite.0.join("agent.test.json"),
            test_file(shipped, BROKEN, settings, None),
        )
        .unwrap();
        let (code, output) = suite.run(&[]);
        assert_eq!(code, 0, "{settings}: {output}");
    }
}

/// A JSON test's redactions (and the standard ones: API keys, bearer tokens) are written as
/// `[REDACTED]` and matched so on replay.
#[test]
fn a_tests_redactions_are_written_and_matched() {
    let message =
        "My order 1042 arrived broken. Bearer eyJhbGciOiJIUzI1NiJ9.abc.def, card 4111111111111111.";
    let settings = r#", "redact": ["\\b\\d{16}\\b"]"#;
    let suite = Suite::new(
        "redact",
        &template_xml(),
        &test_file(ORDER, message, settings, None),
    );
    let (code, output) = suite.record(&suite.model());
    assert_eq!(code, 0, "{output}");
    let text = std::fs::read_to_string(suite.cassette()).unwrap();
    assert!(
        !text.contains("4111111111111111") && !text.contains("eyJhbGciOiJIUzI1NiJ9"),
        "{text}"
    );
    assert!(
        text.contains("broken. [REDACTED], card [REDACTED]."),
        "{text}"
    );
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 0, "{output}");
    std::fs::write(
        suite.0.join("agent.test.json"),
        test_file(ORDER, message, "", None),
    )
    .unwrap();
    let (code, output) = suite.run(&[]);
    assert_eq!(
        code, 1,
        "without the test's redaction the card does not match: {output}"
    );
}

/// The AI Agent Task (the connector on a service task, its tools in a separate ad-hoc
/// sub-process) records and replays from a JSON test like the Sub-process; a changed tool
/// result fails at the call that carries it.
#[test]
fn an_ai_agent_task_records_and_replays_from_json() {
    let xml = std::fs::read_to_string(
        root().join("templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn"),
    )
    .unwrap();
    let task_test = |order: &str| {
        test_file(order, BROKEN, "", None).replace(
            r#""processDefinitionId": "ai-agent-tool-loop""#,
            r#""processDefinitionId": "ai-agent-task-tool-loop""#,
        )
    };
    let suite = Suite::new("agent-task", &xml, &task_test(ORDER));
    let (code, output) = suite.record(&suite.model());
    assert_eq!(code, 0, "{output}");
    let recording = Recording::read(suite.cassette()).unwrap();
    assert_eq!(recording.calls.len(), 3);
    assert_eq!(
        recording.process.map(|p| p.id).as_deref(),
        Some("ai-agent-task-tool-loop")
    );
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 0, "{output}");
    std::fs::write(
        suite.0.join("agent.test.json"),
        task_test(r#"{ "id": "1042", "status": "shipped", "damaged": true }"#),
    )
    .unwrap();
    let (code, output) = suite.run(&[]);
    assert_eq!(code, 1, "{output}");
    let failure = failure(&output);
    assert!(
        failure.contains("model call 2 of \"support-agent\" does not match")
            && failure
                .contains("the tool lookup-order (job type order-lookup) returned something else"),
        "{failure}"
    );
}

/// `baton cassette import` writes the cassette of an exported agentContext, and refuses what
/// is not one with the file and the path.
#[test]
fn baton_cassette_import_writes_a_cassette_or_refuses_with_the_path() {
    let dir = std::env::temp_dir().join(format!("baton-import-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let context = serde_json::json!({"agentContext": {
        "state": "READY",
        "toolDefinitions": [{"name": "lookup-order", "description": "Looks up an order.", "inputSchema": {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]}}],
        "conversation": {"type": "in-process", "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
            {"role": "user", "content": [{"type": "text", "text": "Where is 1042?"}]},
            {"role": "assistant", "content": [], "toolCalls": [{"id": "call_1", "name": "lookup-order", "arguments": {"orderId": "1042"}}]},
            {"role": "tool_call_result", "results": [{"id": "call_1", "name": "lookup-order", "content": {"status": "shipped"}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "It has shipped."}]}
        ]}
    }});
    std::fs::write(dir.join("context.json"), context.to_string()).unwrap();
    std::fs::write(
        dir.join("not-a-context.json"),
        r#"{"agentContext": {"state": "READY"}}"#,
    )
    .unwrap();
    let context_file = dir.join("context.json").display().to_string();
    let output_file = dir.join("imported.json").display().to_string();
    let (code, output) = baton(
        &[
            "cassette",
            "import",
            &context_file,
            "--agent",
            "support-agent",
            "--process",
            "ai-agent-tool-loop",
            "--output",
            &output_file,
        ],
        &dir,
    );
    assert_eq!(code, 0, "{output}");
    assert_eq!(output.trim(), "wrote [dir]/imported.json (2 model calls)");
    let recording = Recording::read(&output_file).unwrap();
    assert_eq!(recording.agent.as_deref(), Some("support-agent"));
    assert_eq!(recording.calls.len(), 2);
    let (code, refused) = baton(
        &[
            "cassette",
            "import",
            &dir.join("not-a-context.json").display().to_string(),
        ],
        &dir,
    );
    assert_eq!(code, 1, "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(refused, @"baton cassette import: [dir]/not-a-context.json is not an agentContext: agentContext has no conversation (an agentContext has state, toolDefinitions and conversation; got an object with state)");
}
