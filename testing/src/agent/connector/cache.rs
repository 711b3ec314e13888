//! What the connector keeps from one job of an agent element to the next: its configuration
//! and its tools, each used again only for equal inputs; and the tools a deployment's mocks
//! resolved, shared by the mocks of its tests.

use std::sync::{Arc, Mutex, PoisonError};

use baton_engine::runtime::{JsonRef, SharedJson};
use serde_json::Value;

use super::config::{Config, read_config};
use super::context::{AgentTools, read_tool_definitions};
use super::job::{AgentJob, Kind};
use crate::agent::tools::ToolDefinition;

/// What the connector read for the agent elements it served, kept by the caller from one job
/// to the next and keyed by process definition and element: the tools resolved from an
/// element's `adHocSubProcessElements` and the configuration read from its `provider` and
/// `data`, each used again only for equal inputs. Tools it does not have yet it looks up in its
/// [`ToolCache`].
#[derive(Debug, Clone, Default)]
pub struct ElementCache {
    entries: Vec<ElementEntry>,
    shared: ToolCache,
}

#[derive(Debug, Clone)]
pub(super) struct ElementEntry {
    process_definition_key: u64,
    element_id: String,
    tools: Option<ToolsRead>,
    config: Option<ConfigRead>,
    shared: ToolCache,
}

/// The tools resolved for the agent elements of one deployment, by process definition and
/// element, shared by every mock that holds a clone: every instance of a deployed ad-hoc
/// sub-process hands out the same `adHocSubProcessElements`, so the tests of a deployment
/// resolve an agent's tools once. [`Deployment::test`](crate::Deployment::test) gives each test
/// its deployment's cache; an entry is used only for an equal `adHocSubProcessElements` value,
/// so sharing a cache can never change which tools an agent offers.
#[derive(Clone, Default)]
pub struct ToolCache(Arc<Mutex<Vec<SharedToolsRead>>>);

impl std::fmt::Debug for ToolCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries = self.0.lock().unwrap_or_else(PoisonError::into_inner).len();
        f.debug_struct("ToolCache")
            .field("entries", &entries)
            .finish()
    }
}

#[derive(Debug, Clone)]
struct SharedToolsRead {
    process_definition_key: u64,
    element_id: String,
    read: ToolsRead,
}

impl ToolCache {
    /// An empty cache.
    pub fn new() -> ToolCache {
        ToolCache::default()
    }

    /// The tools resolved for this element from an equal `adHocSubProcessElements` value.
    fn find(
        &self,
        process_definition_key: u64,
        element_id: &str,
        elements: &SharedJson,
    ) -> Option<ToolsRead> {
        let entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .iter()
            .find(|e| {
                e.process_definition_key == process_definition_key && e.element_id == element_id
            })
            .filter(|e| e.read.elements == *elements)
            .map(|e| e.read.clone())
    }

    /// Keeps the tools resolved for this element (in place of the ones of another value).
    fn keep(&self, process_definition_key: u64, element_id: &str, read: &ToolsRead) {
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = SharedToolsRead {
            process_definition_key,
            element_id: element_id.to_string(),
            read: read.clone(),
        };
        match entries.iter_mut().find(|e| {
            e.process_definition_key == process_definition_key && e.element_id == element_id
        }) {
            Some(found) => *found = entry,
            None => entries.push(entry),
        }
    }
}

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
    /// A cache that looks up and keeps resolved tools in `shared` too.
    pub fn sharing(shared: ToolCache) -> ElementCache {
        ElementCache {
            entries: Vec::new(),
            shared,
        }
    }

    /// The entry of the job's element (a new one when the element was not served before).
    pub(super) fn entry(&mut self, job: &AgentJob<'_>) -> &mut ElementEntry {
        let found = self.entries.iter().position(|entry| {
            entry.process_definition_key == job.process_definition_key
                && entry.element_id == job.element_id
        });
        let index = found.unwrap_or_else(|| {
            self.entries.push(ElementEntry {
                process_definition_key: job.process_definition_key,
                element_id: job.element_id.to_string(),
                tools: None,
                config: None,
                shared: self.shared.clone(),
            });
            self.entries.len() - 1
        });
        &mut self.entries[index]
    }
}

impl ElementEntry {
    /// The configuration of `provider` and `data` (read again when they are other values).
    pub(super) fn config(
        &mut self,
        provider: Option<&SharedJson>,
        data: Option<&SharedJson>,
        kind: Kind,
    ) -> Result<Arc<Config>, Vec<String>> {
        if let Some(read) = &self.config
            && read.provider.as_ref() == provider
            && read.data.as_ref() == data
        {
            return Ok(read.config.clone());
        }
        let config = Arc::new(read_config(
            provider.map(|p| &**p),
            data.map(|d| &**d),
            kind,
        )?);
        self.config = Some(ConfigRead {
            provider: provider.cloned(),
            data: data.cloned(),
            config: config.clone(),
        });
        Ok(config)
    }

    /// The tools resolved from these `adHocSubProcessElements`: this element's, else the ones
    /// the shared cache holds for the element and an equal value.
    pub(super) fn resolved(&mut self, elements: &SharedJson) -> Option<AgentTools> {
        if !self
            .tools
            .as_ref()
            .is_some_and(|read| read.elements == *elements)
        {
            let kept = self
                .shared
                .find(self.process_definition_key, &self.element_id, elements);
            self.tools = Some(kept?);
        }
        self.tools.as_ref().map(|read| read.tools.clone())
    }

    /// Keeps the tools resolved from these `adHocSubProcessElements`, for the element and in
    /// the shared cache.
    pub(super) fn remember(&mut self, elements: &SharedJson, tools: &AgentTools) {
        let read = ToolsRead {
            elements: elements.clone(),
            tools: tools.clone(),
        };
        self.shared
            .keep(self.process_definition_key, &self.element_id, &read);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(elements: &SharedJson) -> ToolsRead {
        ToolsRead {
            elements: elements.clone(),
            tools: AgentTools::new(Vec::new()),
        }
    }

    #[test]
    fn shared_tools_are_found_only_for_their_element_and_an_equal_value() {
        let cache = ToolCache::new();
        let elements = SharedJson::new(json!([{"elementId": "search"}]));
        let equal = SharedJson::new(json!([{"elementId": "search"}]));
        let other = SharedJson::new(json!([{"elementId": "lookup"}]));
        cache.keep(1, "agent", &read(&elements));
        assert!(cache.find(1, "agent", &equal).is_some());
        assert!(cache.find(1, "agent", &other).is_none());
        assert!(cache.find(2, "agent", &elements).is_none());
        assert!(cache.find(1, "other-agent", &elements).is_none());
        // Another value for the element takes the place of the first.
        cache.keep(1, "agent", &read(&other));
        assert!(cache.find(1, "agent", &other).is_some());
        assert!(cache.find(1, "agent", &elements).is_none());
        assert_eq!(format!("{cache:?}"), "ToolCache { entries: 1 }");
    }

    #[test]
    fn a_clone_shares_the_entries() {
        let cache = ToolCache::new();
        let elements = SharedJson::new(json!([]));
        cache.clone().keep(7, "agent", &read(&elements));
        assert!(cache.find(7, "agent", &elements).is_some());
    }
}
