//! What a test does to its engine: starting instances, publishing and correlating messages,
//! broadcasting signals, cluster variables, global task listeners, any other command.

use baton_engine::runtime::{
    CreateInstance, Engine, GlobalTaskListener, Key, PublishMessage, Rejection, VariableDocument,
};

use super::{ActionError, ProcessTest, settle};
use crate::instance::Run;
use crate::variables::{IntoVariables, variables_or_panic};

impl ProcessTest {
    /// Starts an instance of the latest version of a process with variables (`json!({..})` or
    /// `()`), runs it until it waits, and returns its handle. Panics if the process is not
    /// deployed.
    #[track_caller]
    pub fn start(&self, process_id: &str, variables: impl IntoVariables) -> Run {
        let request = CreateInstance::new(process_id).variables(variables_or_panic(variables));
        match self.try_start(request) {
            Ok(run) => run,
            Err(e) => panic!("{e}"),
        }
    }

    /// Starts an instance as the request says (version, start before elements, terminate
    /// after elements).
    pub fn try_start(&self, request: CreateInstance) -> Result<Run, ActionError> {
        let process_id = request.bpmn_process_id.clone();
        let result = self.inner.borrow_mut().engine.create_instance(request);
        match result {
            Ok(key) => {
                self.inner.borrow_mut().roots.push(key);
                settle(&self.inner);
                Ok(self.run(key))
            }
            Err(r) => {
                settle(&self.inner);
                let deployed = self.process_ids();
                Err(ActionError {
                    message: format!(
                        "cannot start process \"{process_id}\": {}\nDeployed processes: {}",
                        r.message,
                        if deployed.is_empty() {
                            "none".to_owned()
                        } else {
                            deployed.join(", ")
                        }
                    ),
                    explanation: String::new(),
                })
            }
        }
    }

    /// Publishes a message (buffered for the client's default time to live, one hour): it
    /// correlates to waiting subscriptions and message start events now, or to those that open
    /// while it is buffered. Returns the message key.
    #[track_caller]
    pub fn publish_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: impl IntoVariables,
    ) -> Key {
        let message =
            PublishMessage::new(name, correlation_key).variables(variables_or_panic(variables));
        self.publish(message)
    }

    /// Publishes a message with every option (time to live, message id).
    #[track_caller]
    pub fn publish(&self, message: PublishMessage) -> Key {
        let name = message.name.clone();
        match self.act(|e| e.publish_message(message)) {
            Ok(key) => key,
            Err(r) => panic!("cannot publish message \"{name}\": {}", r.message),
        }
    }

    /// Correlates a message now (not buffered) and returns the run it reached (a process
    /// instance it started, or the one whose subscription took it). Panics when nothing waits
    /// for it, listing the open subscriptions.
    #[track_caller]
    pub fn correlate_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: impl IntoVariables,
    ) -> Run {
        let vars = variables_or_panic(variables);
        match self.try_correlate_message(name, correlation_key, vars) {
            Ok(run) => run,
            Err(e) => panic!("{e}"),
        }
    }

    /// Correlates a message now; see [`correlate_message`](Self::correlate_message).
    pub fn try_correlate_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: VariableDocument,
    ) -> Result<Run, ActionError> {
        match self.act(|e| e.correlate_message(name, correlation_key, variables)) {
            Ok(c) => {
                let root = self.inner.borrow().root_of(c.process_instance_key);
                {
                    let mut inner = self.inner.borrow_mut();
                    if root == c.process_instance_key && !inner.roots.contains(&root) {
                        inner.roots.push(root);
                    }
                }
                Ok(self.run(c.process_instance_key))
            }
            Err(r) => {
                let open = self.with_engine(|e| {
                    e.all_message_subscriptions()
                        .iter()
                        .map(|s| {
                            format!(
                                "\"{}\" (key \"{}\") at \"{}\" in process \"{}\"",
                                s.message_name, s.correlation_key, s.element_id, s.bpmn_process_id
                            )
                        })
                        .collect::<Vec<_>>()
                });
                Err(ActionError {
                    message: format!(
                        "message \"{name}\" with correlation key \"{correlation_key}\" was not correlated: {}\nOpen message subscriptions: {}",
                        r.message,
                        if open.is_empty() {
                            "none".to_owned()
                        } else {
                            open.join(", ")
                        }
                    ),
                    explanation: String::new(),
                })
            }
        }
    }

    /// Broadcasts a signal to every signal event waiting now (and signal start events).
    #[track_caller]
    pub fn broadcast_signal(&self, name: &str, variables: impl IntoVariables) {
        let vars = variables_or_panic(variables);
        if let Err(r) = self.act(|e| e.broadcast_signal(name, vars)) {
            panic!("cannot broadcast signal \"{name}\": {}", r.message);
        }
    }

    /// Sets cluster variables (Camunda 8.10) for this test's engine: FEEL reads them as
    /// `camunda.vars.cluster.NAME` and `camunda.vars.env.NAME` (after the process variables:
    /// a variable named `camunda` hides them). Set again, a variable is replaced.
    #[track_caller]
    pub fn set_cluster_variables(&self, variables: impl IntoVariables) {
        self.set_cluster_variables_of(None, variables);
    }

    /// Sets cluster variables of a tenant: `camunda.vars.tenant.NAME`, and
    /// `camunda.vars.env.NAME` over a global variable of the same name. baton's process
    /// instances belong to Zeebe's default tenant, `"<default>"`
    /// ([`DEFAULT_TENANT`](crate::DEFAULT_TENANT)): only its variables are read.
    #[track_caller]
    pub fn set_tenant_cluster_variables(&self, tenant_id: &str, variables: impl IntoVariables) {
        self.set_cluster_variables_of(Some(tenant_id), variables);
    }

    #[track_caller]
    fn set_cluster_variables_of(&self, tenant_id: Option<&str>, variables: impl IntoVariables) {
        let vars = variables_or_panic(variables);
        if let Err(r) = self.act(|e| e.set_cluster_variables(tenant_id, vars)) {
            panic!("cannot set cluster variables: {}", r.message);
        }
    }

    /// Creates a global user task listener for this test's engine (Camunda 8.9+): a task
    /// listener of every Camunda user task, for the events it names, run before the task's own
    /// listeners (after them when `after_non_global`), higher `priority` first. Its jobs are
    /// task listener jobs of its job type: a mock of that type answers them.
    #[track_caller]
    pub fn create_global_task_listener(&self, listener: GlobalTaskListener) {
        let id = listener.id.clone();
        if let Err(r) = self.act(|e| e.create_global_task_listener(listener)) {
            panic!("cannot create global task listener \"{id}\": {}", r.message);
        }
    }

    /// Runs an engine command, then lets the engine and the mocks settle. The way to send any
    /// command this API has no method for (the CPT runner uses it).
    pub fn act<T>(
        &self,
        command: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection> {
        let result = command(&mut self.inner.borrow_mut().engine);
        settle(&self.inner);
        result
    }
}
