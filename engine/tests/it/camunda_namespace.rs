//! The `camunda` namespace of FEEL expressions in Zeebe 8.10: cluster variables
//! (`camunda.vars.cluster.*`, `.tenant.*`, `.env.*`) and `camunda.processInstance.key`.
//!
//! Sources: camunda/camunda `zeebe/engine/src/test/java/io/camunda/zeebe/engine/processing/
//! expression/ClusterVariableEvaluationContextTest.java` and `ProcessInstanceExpressionContextTest.java`
//! (the spec "camunda.processInstance.key in FEEL Expressions" lists its cases), and
//! `BpmnBehaviorsImpl` (process variables first, then the namespace: `CombinedEvaluationContext`,
//! first name found wins).

use baton_engine::runtime::*;
use serde_json::{Value as Json, json};

use crate::xml::*;

/// A process `p`: start, a service task `task` of job type `job_type` (text as written), end.
fn task_process(task: &str) -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="s" />{task}<bpmn:endEvent id="e" />{}"#,
            chain(&["s", "task", "e"])
        ),
    ))
}

fn job_task(job_type: &str, extra: &str) -> String {
    format!(
        r#"<bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}" />{extra}</bpmn:extensionElements></bpmn:serviceTask>"#
    )
}

/// The last value written to a variable `name`, from the log (the instance may have ended).
fn written(e: &Engine, name: &str) -> Option<Json> {
    e.records().iter().rev().find_map(|r| match &r.value {
        RecordValue::Variable(v) if &*v.name == name => Some(v.value.to_json()),
        _ => None,
    })
}

fn only_job(e: &Engine) -> JobView {
    let jobs = e.activatable_jobs(None);
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].clone()
}

fn engine_with(global: Json, tenant: Option<Json>) -> Engine {
    let mut e = Engine::default();
    e.set_cluster_variables(None, doc(global)).unwrap();
    if let Some(t) = tenant {
        e.set_cluster_variables(Some(DEFAULT_TENANT), doc(t))
            .unwrap();
    }
    e
}

/// The job type a FEEL job type expression gives, in an engine with these cluster variables.
fn job_type_of(e: &mut Engine, expression: &str) -> String {
    deploy(e, &task_process(&job_task(&xml_escape(expression), "")));
    e.create_instance(CreateInstance::new("p")).unwrap();
    only_job(e).job_type.to_string()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn cluster_variables_resolve_by_namespace() {
    // (test of ClusterVariableEvaluationContextTest, expression, expected job type)
    let cases: &[(&str, &str, &str)] = &[
        (
            "checkGlobalClusterVariableIsResolved",
            "=camunda.vars.cluster.KEY_1",
            "_1_",
        ),
        (
            "checkTenantClusterVariableIsResolved",
            "=camunda.vars.tenant.KEY_2",
            "_2_",
        ),
        (
            "checkGlobalClusterNestedVariableIsResolved",
            "=camunda.vars.env.JOB_CONFIG.type",
            "DYNAMIC_TYPE",
        ),
        (
            "checkTenantClusterVariableOverridesGlobalClusterVariableInEnv",
            "=camunda.vars.env.SVC",
            "tenant",
        ),
        (
            "checkEnvNamespaceContainsUnionOfGlobalAndTenantClusterVariable",
            r#"=camunda.vars.env.A + "-" + camunda.vars.env.C"#,
            "globalA-tenantC",
        ),
        (
            "checkEnvNamespaceFallsBackToGlobalWhenTenantMissingKey",
            "=camunda.vars.env.ONLY_GLOBAL",
            "global",
        ),
        (
            "checkGlobalClusterVariableIsNotResolvedWhenReferencedWithoutNamespace",
            r#"=if KEY_1 = null then "default" else KEY_1"#,
            "default",
        ),
        (
            "the global scope does not see tenant variables",
            r#"=if camunda.vars.cluster.KEY_2 = null then "DEFAULT_JOB_TYPE" else "seen""#,
            "DEFAULT_JOB_TYPE",
        ),
    ];
    for (test, expression, expected) in cases {
        let mut e = engine_with(
            json!({"KEY_1": "_1_", "JOB_CONFIG": {"type": "DYNAMIC_TYPE", "retries": 10},
                   "SVC": "global", "A": "globalA", "ONLY_GLOBAL": "global"}),
            Some(json!({"KEY_2": "_2_", "SVC": "tenant", "C": "tenantC"})),
        );
        assert_eq!(
            &job_type_of(&mut e, expression),
            expected,
            "{test}: {expression}"
        );
    }
}

#[test]
fn a_cluster_variable_gives_job_retries() {
    // checkGlobalClusterVariableIsResolvedInRetries, checkGlobalClusterNestedVariableIsResolved.
    let mut e = engine_with(json!({"JOB_CONFIG": {"retries": 10}}), None);
    deploy(
        &mut e,
        &task_process(
            r#"<bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="t" retries="=camunda.vars.env.JOB_CONFIG.retries" /></bpmn:extensionElements></bpmn:serviceTask>"#,
        ),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    assert_eq!(only_job(&e).retries, 10);
}

#[test]
fn another_tenants_variables_are_not_seen() {
    // checkTenantIsolationTenantVarNotVisibleToOtherTenant: baton's instances are of the
    // default tenant, so a variable of tenant "tenant_A" is not theirs.
    let mut e = Engine::default();
    e.set_cluster_variables(Some("tenant_A"), doc(json!({"KEY": "A_VAL"})))
        .unwrap();
    let t = job_type_of(
        &mut e,
        r#"=if camunda.vars.tenant.KEY = null and camunda.vars.env.KEY = null then "DEFAULT_JOB_TYPE" else "seen""#,
    );
    assert_eq!(t, "DEFAULT_JOB_TYPE");
}

#[test]
fn a_process_variable_named_camunda_hides_the_namespace() {
    // checkGlobalClusterVariableTakesPriorityOverProcessVariable: the job's variable `camunda`
    // wins in the output mapping; then checkNotFoundClusterVariableReturnNullCleanly: a missing
    // cluster variable is null, no incident.
    let mut e = engine_with(json!({"KEY": "ClusterDefined"}), None);
    let output = r#"<zeebe:ioMapping><zeebe:output source="=camunda.vars.env.KEY" target="resultJob" /><zeebe:output source="=camunda.vars.env.KEY_3" target="missing" /></zeebe:ioMapping>"#;
    deploy(&mut e, &task_process(&job_task("_1_", output)));
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    e.complete_job(
        only_job(&e).key,
        doc(json!({"camunda": {"vars": {"env": {"KEY": "ProcessDefined"}}}})),
    )
    .unwrap();
    assert_eq!(written(&e, "resultJob"), Some(json!("ProcessDefined")));
    assert_eq!(written(&e, "missing"), Some(Json::Null));
    assert_eq!(state_of(&e, pi), State::Completed);

    // Without that variable the cluster variable is read.
    let mut e = engine_with(json!({"KEY": "ClusterDefined"}), None);
    deploy(&mut e, &task_process(&job_task("_1_", output)));
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    e.complete_job(only_job(&e).key, VariableDocument::new())
        .unwrap();
    assert_eq!(written(&e, "resultJob"), Some(json!("ClusterDefined")));
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn setting_cluster_variables_writes_created_then_updated_records() {
    let mut e = Engine::default();
    e.set_cluster_variables(None, doc(json!({"A": 1}))).unwrap();
    e.set_cluster_variables(None, doc(json!({"A": {"x": true}, "B": "b"})))
        .unwrap();
    e.set_cluster_variables(Some("acme"), doc(json!({"A": 2})))
        .unwrap();
    assert_eq!(job_type_of(&mut e, "=string(camunda.vars.env.A.x)"), "true");
    insta::assert_snapshot!(log_since(&e, 0)
        .lines()
        .filter(|l| l.contains("CLUSTER_VARIABLE"))
        .collect::<Vec<_>>()
        .join("\n"), @r#"
       1 EVENT CLUSTER_VARIABLE CREATED name="A" value=1 scope=GLOBAL
       2 EVENT CLUSTER_VARIABLE UPDATED name="A" value={"x":true} scope=GLOBAL
       3 EVENT CLUSTER_VARIABLE CREATED name="B" value="b" scope=GLOBAL
       4 EVENT CLUSTER_VARIABLE CREATED name="A" value=2 scope=TENANT tenant="acme"
    "#);
    let blank = e
        .set_cluster_variables(None, doc(json!({" ": 1})))
        .unwrap_err();
    assert_eq!(blank.rejection_type, RejectionType::InvalidArgument);
}

/// `camunda.processInstance.key` where ProcessInstanceExpressionContextTest checks it: each case
/// a process `p` whose run (completing every job) leaves `seen` = the key, or a job whose type
/// is the key.
#[test]
fn the_process_instance_key_is_read_where_expressions_run_during_execution() {
    let key = "camunda.processInstance.key";
    // (case of the spec, process body, how the key shows)
    let cases: Vec<(&str, String, Shows)> = vec![
        (
            "1 input mapping",
            format!(
                r#"<bpmn:startEvent id="s" />{}<bpmn:endEvent id="e" />{}"#,
                job_task(
                    "t",
                    &format!(
                        r#"<zeebe:ioMapping><zeebe:input source="={key}" target="local" /><zeebe:output source="=local" target="seen" /></zeebe:ioMapping>"#
                    )
                ),
                chain(&["s", "task", "e"])
            ),
            Shows::Variable,
        ),
        (
            "2 output mapping on the start event",
            format!(
                r#"<bpmn:startEvent id="s"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="={key}" target="seen" /></zeebe:ioMapping></bpmn:extensionElements></bpmn:startEvent><bpmn:endEvent id="e" />{}"#,
                chain(&["s", "e"])
            ),
            Shows::Variable,
        ),
        (
            "3 sequence flow condition",
            format!(
                r#"<bpmn:startEvent id="s" /><bpmn:exclusiveGateway id="g" default="f_no" />
                <bpmn:endEvent id="yes"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="={key}" target="seen" /></zeebe:ioMapping></bpmn:extensionElements></bpmn:endEvent>
                <bpmn:endEvent id="no" />
                {}<bpmn:sequenceFlow id="f_yes" sourceRef="g" targetRef="yes"><bpmn:conditionExpression>={key} &gt; 0</bpmn:conditionExpression></bpmn:sequenceFlow>{}"#,
                flow("f_s", "s", "g"),
                flow("f_no", "g", "no")
            ),
            Shows::Variable,
        ),
        (
            "4 job type",
            format!(
                r#"<bpmn:startEvent id="s" />{}<bpmn:endEvent id="e" />{}"#,
                job_task(&format!("=string({key})"), ""),
                chain(&["s", "task", "e"])
            ),
            Shows::JobType,
        ),
        (
            "16 multi-instance input collection",
            format!(
                r#"<bpmn:startEvent id="s" /><bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="t" /><zeebe:ioMapping><zeebe:output source="=item" target="seen" /></zeebe:ioMapping></bpmn:extensionElements>
                <bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=[{key}]" inputElement="item" /></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask><bpmn:endEvent id="e" />{}"#,
                chain(&["s", "task", "e"])
            ),
            Shows::Variable,
        ),
        (
            "18 intermediate timer catch",
            format!(
                r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="t"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="={key}" target="seen" /></zeebe:ioMapping></bpmn:extensionElements><bpmn:timerEventDefinition><bpmn:timeDuration>=if {key} &gt; 0 then "PT0S" else "PT1H"</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
                chain(&["s", "t", "e"])
            ),
            Shows::Variable,
        ),
        (
            "27 inside an embedded sub-process",
            format!(
                r#"<bpmn:startEvent id="s" /><bpmn:subProcess id="sub"><bpmn:startEvent id="ss" />{}<bpmn:endEvent id="se" />{}</bpmn:subProcess><bpmn:endEvent id="e" />{}"#,
                job_task(
                    "t",
                    &format!(
                        r#"<zeebe:ioMapping><zeebe:input source="={key}" target="local" /><zeebe:output source="=local" target="seen" /></zeebe:ioMapping>"#
                    )
                ),
                chain(&["ss", "task", "se"]),
                chain(&["s", "sub", "e"])
            ),
            Shows::Variable,
        ),
    ];
    for (case, body, shows) in cases {
        let mut e = Engine::default();
        deploy(&mut e, &definitions(&process("p", &body)));
        let pi = e.create_instance(CreateInstance::new("p")).unwrap();
        match shows {
            Shows::JobType => {
                assert_eq!(only_job(&e).job_type.to_string(), pi.to_string(), "{case}")
            }
            Shows::Variable => {
                complete_all_jobs(&mut e);
                assert!(e.incidents().is_empty(), "{case}: {:?}", e.incidents());
                assert_eq!(written(&e, "seen"), Some(json!(pi)), "{case}");
            }
        }
    }
}

enum Shows {
    Variable,
    JobType,
}

#[test]
fn a_call_activity_reads_the_callers_key_and_the_child_its_own() {
    // Cases 28 and 29: the call activity's input mapping is evaluated by the caller, the first
    // task of the called process by the child.
    let key = "camunda.processInstance.key";
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&format!(
            "{}{}",
            process(
                "parent",
                &format!(
                    r#"<bpmn:startEvent id="s" /><bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child" /><zeebe:ioMapping><zeebe:input source="={key}" target="callerKey" /></zeebe:ioMapping></bpmn:extensionElements></bpmn:callActivity><bpmn:endEvent id="e" />{}"#,
                    chain(&["s", "call", "e"])
                )
            ),
            process(
                "child",
                &format!(
                    r#"<bpmn:startEvent id="cs" /><bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="t" /><zeebe:ioMapping><zeebe:input source="={key}" target="childKey" /></zeebe:ioMapping></bpmn:extensionElements></bpmn:serviceTask><bpmn:endEvent id="ce" />{}"#,
                    chain(&["cs", "task", "ce"])
                )
            )
        )),
    );
    let parent = e.create_instance(CreateInstance::new("parent")).unwrap();
    let job = only_job(&e);
    assert_ne!(job.process_instance_key, parent);
    assert_eq!(
        *e.variable(job.element_instance_key, "callerKey").unwrap(),
        json!(parent),
        "the child gets the caller's key through the input mapping"
    );
    assert_eq!(
        *e.variable(job.element_instance_key, "childKey").unwrap(),
        json!(job.process_instance_key)
    );
}

#[test]
fn the_process_instance_key_is_null_for_a_timer_start_event() {
    // Case 30: a timer start event is evaluated before any instance exists.
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&process(
            "p",
            &format!(
                r#"<bpmn:startEvent id="s"><bpmn:timerEventDefinition><bpmn:timeDuration>=if camunda.processInstance.key = null then "PT1S" else "PT1H"</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:startEvent><bpmn:endEvent id="e" />{}"#,
                chain(&["s", "e"])
            ),
        )),
    );
    e.advance_clock(1_000).unwrap();
    assert_eq!(
        e.process_instances().len(),
        1,
        "the null path (PT1S) was taken"
    );
}
