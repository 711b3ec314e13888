//! One tool of an agent on its own (camunda/camunda#55243, "testing gets dropped … because it's
//! too hard"): the process starts at the agent element, the model's first turn calls that one
//! tool with the arguments given, and the agent's next model call ends it. The tool's
//! `fromAi()` mappings are checked and applied, its job is answered by the test's mocks (or
//! waits for the test), and the ad-hoc sub-process's output element makes its result, all as
//! in a full run; nothing of the model is scripted by the test.

use serde_json::{Value, json};

use super::turn::Turn;
use crate::trace::TraceEvent;
use crate::variables::{IntoVariables, variables_or_panic};
use crate::{ActionError, CreateInstance, ProcessTest, Run};

/// One tool run on its own: the [`Run`] (started at the agent, ended after it) and the tool's
/// result.
#[derive(Debug, Clone)]
pub struct ToolRun {
    run: Run,
    agent: String,
    tool: String,
}

impl ProcessTest {
    /// Runs the tool `tool` of the AI agent `agent` on its own, with `arguments` as the model's
    /// tool call and `variables` as the process instance's: the instance starts at the agent
    /// and is terminated when the agent completes (as CPT's `terminateAfter` ends it). Mock the tool's job (or answer it through
    /// [`ToolRun::run`]) as in any test.
    ///
    /// ```
    /// # use baton_testing::ProcessTest;
    /// # use serde_json::json;
    /// # const TEMPLATE: &str = include_str!("../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn");
    /// let test = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", TEMPLATE)?;
    /// test.mock_job("order-lookup")
    ///     .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    /// let start = json!({"customerMessage": "Where is order 1042?"});
    /// let lookup = test.run_tool("support-agent", "lookup-order", json!({"orderId": "1042"}), start);
    /// lookup.assert_result(json!({"id": "1042", "status": "delivered"}));
    /// # Ok::<(), baton_testing::DeployError>(())
    /// ```
    ///
    /// Panics when `agent` is no AI agent or `tool` no tool of it, and (through the run's
    /// errors) when the arguments do not fit the tool's `fromAi()` parameters.
    #[track_caller]
    pub fn run_tool(
        &self,
        agent: &str,
        tool: &str,
        arguments: Value,
        variables: impl IntoVariables,
    ) -> ToolRun {
        match self.try_run_tool(agent, tool, arguments, variables_or_panic(variables)) {
            Ok(run) => run,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`run_tool`](Self::run_tool), with `Err` when the agent cannot be mocked or the
    /// instance cannot be started.
    pub fn try_run_tool(
        &self,
        agent: &str,
        tool: &str,
        arguments: Value,
        variables: baton_engine::runtime::VariableDocument,
    ) -> Result<ToolRun, ActionError> {
        let refused = |message: String| ActionError {
            message,
            explanation: String::new(),
        };
        let process_id = self.with_engine(|engine| {
            engine
                .deployed_processes()
                .filter(|p| p.find(agent).is_some())
                .last()
                .map(|p| p.bpmn_process_id().to_string())
        });
        let Some(process_id) = process_id else {
            return Err(refused(format!(
                "cannot run a tool of \"{agent}\": no deployed process has an element \"{agent}\""
            )));
        };
        self.try_mock_ai_agent(
            agent,
            // After the result, an empty JSON answer: text a JSON response format parses too.
            vec![Turn::call(tool, arguments), Turn::respond_json(json!({}))],
        )
        .map_err(|e| refused(e.to_string()))?;
        let mut request = CreateInstance::new(process_id).variables(variables);
        request.start_instructions = vec![agent.to_string()];
        request.terminate_after = vec![agent.to_string()];
        let run = self.try_start(request)?;
        Ok(ToolRun {
            run,
            agent: agent.to_string(),
            tool: tool.to_string(),
        })
    }
}

impl ToolRun {
    /// The process instance: to answer the tool's job, move the clock, assert on elements.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// The tool's result as the ad-hoc sub-process's output element made it (what the agent
    /// appends to its output collection), once the tool has completed.
    pub fn result(&self) -> Option<Value> {
        self.run
            .trace_events()
            .into_iter()
            .find_map(|event| match event {
                TraceEvent::ToolResult {
                    agent,
                    tool,
                    content,
                } if agent == self.agent && tool == self.tool => Some(content),
                _ => None,
            })
    }

    /// The tool's result is `expected` (JSON equality, numbers by value).
    #[track_caller]
    pub fn assert_result(&self, expected: Value) -> &Self {
        let actual = self.result();
        let same = actual
            .as_ref()
            .is_some_and(|a| crate::variables::json_equal(a, &expected));
        if !same {
            let shown = actual.map_or_else(
                || "it has no result yet (the tool did not complete)".to_string(),
                |a| format!("it was {a}"),
            );
            panic!(
                "expected the tool \"{}\" of \"{}\" to return {expected}\n    but {shown}\n\n{}",
                self.tool,
                self.agent,
                self.run.explain()
            );
        }
        self
    }
}
