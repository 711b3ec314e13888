//! What the connector keeps from one job of an agent element to the next: its configuration
//! and its tools, each used again only for equal inputs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

use baton_engine::runtime::{JsonRef, SharedJson};
use serde_json::Value;

use super::config::{Config, read_config};
use super::context::{AgentTools, read_tool_definitions};
use super::job::AgentJob;
use crate::agent::tools::ToolDefinition;

/// What the connector read for the agent elements it served, kept by the caller from one job
/// to the next and keyed by process definition and element: the tools resolved from an
/// element's `adHocSubProcessElements` and the configuration read from its `provider` and
/// `data`, each used again only for equal inputs.
#[derive(Debug, Clone, Default)]
pub struct ElementCache(Vec<ElementEntry>);

#[derive(Debug, Clone)]
pub(super) struct ElementEntry {
    process_definition_key: u64,
    element_id: String,
    tools: Option<ToolsRead>,
    config: Option<ConfigRead>,
}

thread_local! {
    /// The tools resolved from the `adHocSubProcessElements` values this thread saw last, newest
    /// first: every instance of a deployed ad-hoc sub-process hands out the same value, so the
    /// tests of a deployment resolve its tools once.
    static RESOLVED: RefCell<VecDeque<ToolsRead>> = const { RefCell::new(VecDeque::new()) };
}

/// How many resolved element lists a thread keeps.
const RESOLVED_KEPT: usize = 16;

/// Tools resolved from an `adHocSubProcessElements` value.
#[derive(Debug, Clone)]
struct ToolsRead {
    elements: SharedJson,
    tools: AgentTools,
}

/// The configuration read from `provider` and `data`.
#[derive(Debug, Clone)]
struct ConfigRead {
    provider: Option<SharedJson>,
    data: Option<SharedJson>,
    config: Arc<Config>,
}

impl ElementCache {
    /// The entry of the job's element (a new one when the element was not served before).
    pub(super) fn entry(&mut self, job: &AgentJob<'_>) -> &mut ElementEntry {
        let found = self.0.iter().position(|entry| {
            entry.process_definition_key == job.process_definition_key
                && entry.element_id == job.element_id
        });
        let index = found.unwrap_or_else(|| {
            self.0.push(ElementEntry {
                process_definition_key: job.process_definition_key,
                element_id: job.element_id.to_string(),
                tools: None,
                config: None,
            });
            self.0.len() - 1
        });
        &mut self.0[index]
    }
}

impl ElementEntry {
    /// The configuration of `provider` and `data` (read again when they are other values).
    pub(super) fn config(
        &mut self,
        provider: Option<&SharedJson>,
        data: Option<&SharedJson>,
    ) -> Result<Arc<Config>, Vec<String>> {
        if let Some(read) = &self.config
            && read.provider.as_ref() == provider
            && read.data.as_ref() == data
        {
            return Ok(read.config.clone());
        }
        let config = Arc::new(read_config(provider.map(|p| &**p), data.map(|d| &**d))?);
        self.config = Some(ConfigRead {
            provider: provider.cloned(),
            data: data.cloned(),
            config: config.clone(),
        });
        Ok(config)
    }

    /// The tools resolved from these `adHocSubProcessElements`: this element's, else the ones
    /// this thread resolved from an equal value.
    pub(super) fn resolved(&mut self, elements: &SharedJson) -> Option<AgentTools> {
        if !self
            .tools
            .as_ref()
            .is_some_and(|read| read.elements == *elements)
        {
            let kept = RESOLVED
                .with_borrow(|kept| kept.iter().find(|read| read.elements == *elements).cloned());
            self.tools = Some(kept?);
        }
        self.tools.as_ref().map(|read| read.tools.clone())
    }

    /// Keeps the tools resolved from these `adHocSubProcessElements`, for the element and for
    /// the thread.
    pub(super) fn remember(&mut self, elements: &SharedJson, tools: &AgentTools) {
        let read = ToolsRead {
            elements: elements.clone(),
            tools: tools.clone(),
        };
        RESOLVED.with_borrow_mut(|kept| {
            kept.truncate(RESOLVED_KEPT - 1);
            kept.push_front(read.clone());
        });
        self.tools = Some(read);
    }

    /// The tools of a context's `toolDefinitions`: the resolved ones when the definitions are
    /// the ones written from them, else read from the definitions.
    pub(super) fn stored_tools(&self, definitions: Option<JsonRef<'_>>) -> Arc<[ToolDefinition]> {
        let definitions = definitions.unwrap_or(JsonRef::Plain(&Value::Null));
        if let Some(read) = &self.tools
            && read.tools.definitions.view() == definitions
        {
            return read.tools.tools.clone();
        }
        read_tool_definitions(definitions).into()
    }
}
