//! The token engine: Zeebe's semantics, deterministic, in process.
//!
//! The engine state changes only through commands: the public methods of [`Engine`], or the same
//! requests held as [`Command`] values and carried out by [`Engine::apply`]. A command
//! is applied like Zeebe's stream processor does it: it writes event records and enqueues
//! follow-up commands (activate, complete, terminate an element instance, ...) into a FIFO queue
//! that is processed until it is empty before the call returns. This reproduces Zeebe's record
//! order (breadth first). Every change is written to the event log ([`Engine::records`]);
//! assertions and coverage read that log.
//!
//! Determinism: no wall clock (time is the engine clock, moved by commands), no randomness, no
//! hash-order output (hash maps are used for lookups by key only, never iterated into output).
//!
//! `Engine` is plain data and `Clone` (deployments are shared behind `Arc`): cloning is the
//! snapshot/restore seam.

pub mod ad_hoc;
mod call_activity;
pub mod command;
mod compensation;
mod conditionals;
pub mod cron;
mod decisions;
mod events;
pub mod executable;
pub mod expr;
mod forms;
mod gateways;
mod incidents;
mod jobs;
pub mod lifecycle;
mod messages;
mod multi_instance;
mod processor;
mod query;
pub mod records;
mod render;
pub mod shared_json;
mod signals;
pub mod state;
mod step;
mod tasks;
pub mod timers;
mod user_tasks;
mod variables;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxHashMap;

pub use command::{Applied, Command, CommandLogError, UnrecordedCommands, read_commands};
pub use decisions::{
    DecisionIdx, DecisionInstanceView, DecisionOutcome, DeployedDecision, DeployedDrg, DrgIdx,
    rule_id,
};
pub use executable::{CompileError, ExecutableProcess};
pub use forms::DeployedForm;
pub use jobs::{AdHocJobResult, JobResult};
pub use lifecycle::State;
pub use messages::{
    BufferedMessageView, CorrelatedMessageView, DEFAULT_MESSAGE_TTL_MS, MessageCorrelation,
    MessageSubscriptionView, PublishMessage,
};
pub use query::{ElementInstanceView, IncidentView, JobView, ProcessInstanceView, VariableView};
pub use records::{
    BpmnElementType, BpmnEventType, ElementRef, ErrorType, Intent, JobKind, Key, ListenerEventType,
    OtherIntent, ProcIdx, ProcessInstanceIntent, Record, RecordType, RecordValue, Rejection,
    RejectionType, SharedVariableDocument, ValueType, VariableDocument, share_document,
};
pub use shared_json::{JsonRef, ObjectKey, SharedJson, SharedObject};
pub use signals::SignalSubscriptionView;
pub use state::JobState;
pub use user_tasks::{UserTask, UserTaskState};

use crate::model::{self, ElementIdx};
use records::{FIRST_KEY, ProcessInstanceValue};
use state::{Incident, ProcessInstanceSummary};
use step::{Activation, FollowUp};

/// Settings of an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The most follow-up commands one public call may process before it stops with an error
    /// (a loop without a wait state, e.g. script tasks in a cycle).
    pub step_limit: usize,
    /// The engine clock at start, epoch milliseconds (default 2025-01-01T00:00:00Z).
    pub start_time_ms: i64,
    /// Keep the event log (the bench turns it off to measure the engine alone).
    pub keep_records: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            step_limit: 100_000,
            start_time_ms: 1_735_689_600_000,
            keep_records: true,
        }
    }
}

/// The deterministic BPMN engine. See the module documentation.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) config: EngineConfig,
    pub(crate) processes: Vec<Arc<ExecutableProcess>>,
    /// Latest version per BPMN process id.
    pub(crate) latest: BTreeMap<Arc<str>, ProcIdx>,
    pub(crate) next_key: Key,
    pub(crate) now: i64,
    pub(crate) records: Vec<Record>,
    pub(crate) position: u64,
    pub(crate) queue: VecDeque<FollowUp>,
    pub(crate) instances: state::InstanceStore,
    /// Variables created for an element instance before it exists (multi-instance children).
    pub(crate) pending_vars: FxHashMap<Key, state::VarMap>,
    pub(crate) process_instances: BTreeMap<Key, ProcessInstanceSummary>,
    pub(crate) jobs: state::JobStore,
    /// Keys of jobs that became activatable, in order (see [`Engine::activatable_jobs_since`]).
    pub(crate) job_feed: Vec<Key>,
    pub(crate) incidents: BTreeMap<Key, Incident>,
    /// Deployed decision requirements graphs and decisions (every version).
    pub(crate) decisions: decisions::DecisionStore,
    pub(crate) user_tasks: BTreeMap<Key, user_tasks::UserTask>,
    /// The triggered start event of an event sub-process about to be activated, by scope.
    pub(crate) pending_esp_start: FxHashMap<Key, state::EventTrigger>,
    /// The element an ad-hoc inner instance will activate, by inner instance key.
    pub(crate) pending_inner_element: FxHashMap<Key, ElementIdx>,
    /// Terminate-after-element runtime instructions, by process instance.
    pub(crate) terminate_after: FxHashMap<Key, Vec<Arc<str>>>,
    /// Start instructions of a process instance being created.
    pub(crate) start_instructions: FxHashMap<Key, Vec<ElementIdx>>,
    pub(crate) timers: timers::TimerState,
    /// Message subscriptions, buffered messages, message start events.
    pub(crate) messaging: messages::MessageState,
    pub(crate) signal_subscriptions: signals::SignalSubscriptions,
    pub(crate) conditionals: conditionals::ConditionalState,
    pub(crate) compensation: compensation::CompensationState,
    pub(crate) forms: Vec<forms::DeployedForm>,
    /// The event start event (message, timer, signal) a process instance being created starts
    /// at, with the event's variables.
    pub(crate) event_starts: FxHashMap<Key, state::EventTrigger>,
    /// Steps processed by the current public call.
    pub(crate) steps: usize,
    /// FEEL evaluations so far: each one seeds `uuid()` and `random number()` with the next
    /// count, so values differ between evaluations and repeat from run to run.
    pub(crate) feel_evaluations: variables::EvaluationCounter,
    /// FEEL's `now()` as JSON at the last instant it was built for (the clock moves rarely).
    pub(crate) now_json: variables::NowJson,
    /// An empty variable document, shared by the records of commands without variables.
    pub(crate) empty_document: Arc<records::SharedVariableDocument>,
    /// The same for instance creations without variables or start instructions.
    pub(crate) empty_plain_document: Arc<VariableDocument>,
    pub(crate) no_start_instructions: Arc<Vec<String>>,
    /// The commands carried out, when recording (see [`Engine::record_commands`]).
    pub(crate) recorded: command::RecordedCommands,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineConfig::default())
    }
}

/// What a deployment produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentInfo {
    pub deployment_key: Key,
    /// (BPMN process id, version, process definition key) per process.
    pub processes: Vec<(String, i32, Key)>,
    /// (decision requirements id, version, key) per DRG (`.dmn` resource).
    pub decision_requirements: Vec<(String, i32, Key)>,
    /// (decision id, version, decision key) per decision.
    pub decisions: Vec<(String, i32, Key)>,
}

/// How to create a process instance.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CreateInstance {
    pub bpmn_process_id: String,
    /// A specific version (default: the latest).
    pub version: Option<i32>,
    pub variables: VariableDocument,
    /// Start before these elements instead of at the none start event.
    pub start_instructions: Vec<String>,
    /// Terminate the instance as soon as one of these elements completes.
    pub terminate_after: Vec<String>,
}

impl CreateInstance {
    pub fn new(bpmn_process_id: impl Into<String>) -> Self {
        CreateInstance {
            bpmn_process_id: bpmn_process_id.into(),
            ..Default::default()
        }
    }

    pub fn variables(mut self, variables: VariableDocument) -> Self {
        self.variables = variables;
        self
    }
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            now: config.start_time_ms,
            config,
            processes: Vec::new(),
            latest: BTreeMap::new(),
            next_key: FIRST_KEY,
            records: Vec::new(),
            position: 0,
            feel_evaluations: variables::EvaluationCounter::default(),
            now_json: variables::NowJson::default(),
            queue: VecDeque::new(),
            instances: state::InstanceStore::default(),
            pending_vars: FxHashMap::default(),
            process_instances: BTreeMap::new(),
            jobs: state::JobStore::default(),
            job_feed: Vec::new(),
            incidents: BTreeMap::new(),
            decisions: decisions::DecisionStore::default(),
            user_tasks: BTreeMap::new(),
            pending_esp_start: FxHashMap::default(),
            pending_inner_element: FxHashMap::default(),
            terminate_after: FxHashMap::default(),
            start_instructions: FxHashMap::default(),
            timers: timers::TimerState::default(),
            messaging: messages::MessageState::default(),
            signal_subscriptions: BTreeMap::new(),
            conditionals: conditionals::ConditionalState::default(),
            compensation: compensation::CompensationState::default(),
            forms: Vec::new(),
            event_starts: FxHashMap::default(),
            steps: 0,
            empty_document: Arc::default(),
            empty_plain_document: Arc::default(),
            no_start_instructions: Arc::default(),
            recorded: command::RecordedCommands::default(),
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The engine clock, epoch milliseconds.
    pub fn now(&self) -> i64 {
        self.now
    }

    pub(crate) fn new_key(&mut self) -> Key {
        let k = self.next_key;
        self.next_key += 1;
        k
    }

    pub(crate) fn write(
        &mut self,
        record_type: RecordType,
        value_type: ValueType,
        intent: Intent,
        key: Option<Key>,
        value: RecordValue,
    ) {
        self.position += 1;
        if self.config.keep_records {
            self.records.push(Record {
                position: self.position,
                key,
                timestamp: self.now,
                record_type,
                value_type,
                intent,
                rejection: None,
                value,
            });
        }
    }

    pub(crate) fn event(
        &mut self,
        value_type: ValueType,
        intent: OtherIntent,
        key: Option<Key>,
        value: RecordValue,
    ) {
        self.write(
            RecordType::Event,
            value_type,
            Intent::Other(intent),
            key,
            value,
        );
    }

    pub(crate) fn reject(
        &mut self,
        value_type: ValueType,
        intent: Intent,
        key: Option<Key>,
        value: RecordValue,
        rejection: Rejection,
    ) -> Rejection {
        self.position += 1;
        if self.config.keep_records {
            self.records.push(Record {
                position: self.position,
                key,
                timestamp: self.now,
                record_type: RecordType::CommandRejection,
                value_type,
                intent,
                rejection: Some(Box::new(rejection.clone())),
                value,
            });
        }
        rejection
    }

    pub(crate) fn process_instance_event(
        &mut self,
        intent: ProcessInstanceIntent,
        key: Key,
        value: ProcessInstanceValue,
    ) {
        self.write(
            RecordType::Event,
            ValueType::ProcessInstance,
            Intent::ProcessInstance(intent),
            Some(key),
            RecordValue::ProcessInstance(value),
        );
    }

    pub(crate) fn process(&self, proc: ProcIdx) -> &Arc<ExecutableProcess> {
        &self.processes[proc.0 as usize]
    }

    /// Deploys resources (BPMN and `.dmn` files): parses them, runs Zeebe's deploy-time checks,
    /// compiles every executable process and deploys every decision requirements graph, under
    /// one deployment key. All or nothing; a rejection lists every problem with file,
    /// line:column and element id.
    pub fn deploy(
        &mut self,
        resources: &[crate::deploy::Resource],
    ) -> Result<DeploymentInfo, Rejection> {
        // Kept even when not recording: deployments are few and their text is shared, so a
        // test on a copy of a deployed engine can record from its first command.
        self.recorded.keep(Command::Deploy {
            resources: resources.to_vec(),
        });
        // `.form` resources are forms (JSON); the others go through the BPMN or DMN checks.
        let is_form = |r: &crate::deploy::Resource| r.name.ends_with(".form");
        let mut forms = Vec::new();
        for r in resources.iter().filter(|r| is_form(r)) {
            let (id, tag) = forms::parse_form(&r.name, r.content())?;
            forms.push((r.name.clone(), id, tag));
        }
        // Without forms the resources are checked as given, not copied.
        let others: Vec<crate::deploy::Resource>;
        let resources = if forms.is_empty() {
            resources
        } else {
            others = resources.iter().filter(|r| !is_form(r)).cloned().collect();
            &others
        };
        let mut checked = if resources.is_empty() {
            Vec::new()
        } else {
            crate::deploy::check(resources).map_err(|d| {
                Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to deploy new resources, but encountered the following errors:\n{d}"
                    ),
                )
            })?
        };
        // The checked models are not needed after this: compiling takes them over rather than
        // copying them.
        let mut owned: Vec<model::Definitions> = checked
            .iter_mut()
            .filter_map(|r| match &mut r.model {
                crate::deploy::DeployedModel::Bpmn(definitions) => {
                    Some(std::mem::take(&mut **definitions))
                }
                crate::deploy::DeployedModel::Dmn(_) => None,
            })
            .collect();
        let bpmn: Vec<(&str, model::Definitions)> = checked
            .iter()
            .filter(|r| r.definitions().is_some())
            .map(|r| r.source.name())
            .zip(owned.drain(..))
            .collect();
        let dmn: Vec<decisions::DmnResource<'_>> = checked
            .iter()
            .filter_map(|r| {
                r.drg().map(|drg| decisions::DmnResource {
                    name: r.source.name(),
                    text: r.source.text(),
                    drg,
                })
            })
            .collect();
        self.deploy_models(bpmn, &dmn, forms)
    }

    /// Deploys one BPMN text (see [`Engine::deploy`]).
    pub fn deploy_xml(&mut self, name: &str, xml: &str) -> Result<DeploymentInfo, Rejection> {
        self.deploy(&[crate::deploy::Resource::from_text(name, xml)])
    }

    /// Deploys the processes of a parsed definitions document. Each process becomes the latest
    /// version of its BPMN process id.
    pub fn deploy_definitions(
        &mut self,
        resource_name: &str,
        definitions: &model::Definitions,
    ) -> Result<DeploymentInfo, Rejection> {
        // A model built in code has no resource a replay could deploy.
        self.record_unreplayable();
        self.deploy_models(vec![(resource_name, definitions.clone())], &[], Vec::new())
    }

    /// Deploys checked models as one deployment: forms first (so the processes find them), then
    /// processes (`PROCESS CREATED`), then decision requirements graphs (`DECISION_REQUIREMENTS
    /// CREATED`, `DECISION CREATED`), then `DEPLOYMENT CREATED`.
    pub(crate) fn deploy_models(
        &mut self,
        bpmn: Vec<(&str, model::Definitions)>,
        dmn: &[decisions::DmnResource<'_>],
        forms: Vec<(String, String, Option<String>)>,
    ) -> Result<DeploymentInfo, Rejection> {
        for (resource_name, definitions) in &bpmn {
            if !definitions.processes.iter().any(|p| p.is_executable) {
                return Err(Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to deploy at least one executable process, but '{resource_name}' has none"
                    ),
                ));
            }
        }
        // Unchanged DMN resources alone are a duplicate deployment: no new versions.
        let duplicates_only = bpmn.is_empty() && forms.is_empty() && self.dmn_duplicates_only(dmn);
        let deployment_key = self.new_key();
        for (name, id, tag) in forms {
            self.deploy_form(&name, id, tag, deployment_key);
        }
        // Compile everything first: a deployment is all or nothing.
        let mut compiled = Vec::new();
        for (resource_name, mut definitions) in bpmn {
            let processes = std::mem::take(&mut definitions.processes);
            for process in processes.into_iter().filter(|p| p.is_executable) {
                let version = self
                    .latest
                    .get(process.id.as_str())
                    .map(|p| self.process(*p).version + 1)
                    .unwrap_or(1);
                let key = self.new_key();
                let exe = executable::compile(
                    executable::CompileInput {
                        definitions: &mut definitions,
                        process,
                    },
                    key,
                    version,
                    deployment_key,
                    resource_name,
                )
                .map_err(|e| {
                    Rejection::new(
                        RejectionType::InvalidArgument,
                        format!("Expected to deploy new resources, but encountered the following errors:\n'{resource_name}': {e}"),
                    )
                })?;
                compiled.push(exe);
            }
        }
        let mut info = DeploymentInfo {
            deployment_key,
            processes: Vec::new(),
            decision_requirements: Vec::new(),
            decisions: Vec::new(),
        };
        let mut replaced = Vec::new();
        for exe in compiled {
            let idx = ProcIdx(self.processes.len() as u32);
            info.processes
                .push((exe.bpmn_process_id.to_string(), exe.version, exe.key));
            let key = exe.key;
            let previous = self.latest.insert(exe.bpmn_process_id.clone(), idx);
            replaced.push((previous, idx));
            self.processes.push(Arc::new(exe));
            self.event(
                ValueType::Process,
                OtherIntent::Created,
                Some(key),
                RecordValue::Process(idx),
            );
        }
        let mut first_drg = None;
        if !duplicates_only {
            let deployed = self.deploy_drgs(dmn, deployment_key);
            info.decision_requirements = deployed.drgs;
            info.decisions = deployed.decisions;
            first_drg = deployed.first_drg;
        }
        if let Some(&(_, _, first)) = info.processes.first() {
            let idx = self.latest_by_key(first);
            self.event(
                ValueType::Deployment,
                OtherIntent::Created,
                Some(deployment_key),
                RecordValue::Process(idx),
            );
        } else if let Some(drg) = first_drg {
            self.event(
                ValueType::Deployment,
                OtherIntent::Created,
                Some(deployment_key),
                RecordValue::DecisionRequirements(drg),
            );
        }
        // Start events that wait for an event belong to the latest version only.
        let start = self.begin();
        for (previous, idx) in replaced {
            self.open_start_event_subscriptions(previous, idx);
        }
        self.run(start)?;
        Ok(info)
    }

    /// Replaces the start event subscriptions (message, timer, signal) of the version `previous`
    /// with those of the new latest version `proc`.
    fn open_start_event_subscriptions(&mut self, previous: Option<ProcIdx>, proc: ProcIdx) {
        self.open_message_start_subscriptions(previous, proc);
        self.open_signal_start_subscriptions(previous, proc);
        self.open_timer_start_events(previous, proc);
        self.open_conditional_start_subscriptions(previous, proc);
    }

    fn latest_by_key(&self, key: Key) -> ProcIdx {
        ProcIdx(
            self.processes
                .iter()
                .position(|p| p.key == key)
                .unwrap_or_default() as u32,
        )
    }

    /// The deployed process with this BPMN process id (latest version).
    pub fn latest_process(&self, bpmn_process_id: &str) -> Option<&ExecutableProcess> {
        self.latest
            .get(bpmn_process_id)
            .map(|i| &**self.process(*i))
    }

    /// All deployed process versions, in deployment order.
    pub fn deployed_processes(&self) -> impl Iterator<Item = &ExecutableProcess> {
        self.processes.iter().map(|p| &**p)
    }

    /// Queues the activation of process instance `pi` and writes `PROCESS_INSTANCE_CREATION
    /// CREATED` with what the request carried: the one way a new instance starts (created by
    /// command, or by a message, timer or signal start event).
    pub(crate) fn queue_process_activation(
        &mut self,
        proc: ProcIdx,
        pi: Key,
        variables: Arc<VariableDocument>,
        start_instructions: Arc<Vec<String>>,
    ) {
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(pi),
            proc,
            process_instance_key: pi,
            flow_scope: None,
            element: None,
            element_type: BpmnElementType::Process,
            via_flow: None,
            variables: None,
            parent: None,
            loop_counter: 0,
        }));
        self.event(
            ValueType::ProcessInstanceCreation,
            OtherIntent::Created,
            Some(pi),
            RecordValue::ProcessInstanceCreation {
                proc,
                process_instance_key: pi,
                variables,
                start_instructions,
            },
        );
    }

    /// Runs queued follow-up commands until the queue is empty, or fails once the step limit is
    /// reached.
    /// Timers that are due (their date passed, or the clock moved past them) fire once the
    /// queue is empty, all due ones at a time; then the engine reacts, and so on: a cycle whose
    /// next due date has already passed fires again (bounded by the step limit).
    pub(crate) fn run(&mut self, start_position: u64) -> Result<(), Rejection> {
        loop {
            // Variables changed by the command itself (a job's or a user's variables).
            if !self.conditionals.changes.is_empty() {
                self.check_conditionals();
            }
            while let Some(follow_up) = self.queue.pop_front() {
                self.steps += 1;
                if self.steps > self.config.step_limit {
                    self.queue.clear();
                    return Err(self.step_limit_error(start_position));
                }
                self.process_follow_up(follow_up);
                if !self.conditionals.changes.is_empty() {
                    self.check_conditionals();
                }
            }
            if !self.timers.any_due(self.now) {
                return Ok(());
            }
            self.fire_due_timers();
            if self.steps > self.config.step_limit {
                self.queue.clear();
                return Err(self.step_limit_error(start_position));
            }
        }
    }

    /// Starts a public command: resets the step counter and returns the position to report from.
    pub(crate) fn begin(&mut self) -> u64 {
        self.steps = 0;
        self.position
    }

    fn step_limit_error(&self, start_position: u64) -> Rejection {
        // Name the elements activated most often during this command.
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in self
            .records
            .iter()
            .rev()
            .take_while(|r| r.position > start_position)
        {
            if r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementActivated)
                && let RecordValue::ProcessInstance(v) = &r.value
                && let ElementRef::Element(e) = v.element_ref
            {
                let id = self.process(v.proc).element(e).id.to_string();
                *counts.entry(id).or_default() += 1;
            }
        }
        let mut top: Vec<(String, usize)> = counts.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let names: Vec<String> = top
            .iter()
            .take(5)
            .map(|(id, n)| format!("'{id}' ({n} times)"))
            .collect();
        let which = if names.is_empty() {
            String::new()
        } else {
            format!(" Elements activated most often: {}.", names.join(", "))
        };
        Rejection::new(
            RejectionType::ProcessingError,
            format!(
                "Stopped after {} steps without reaching a wait state (the limit is EngineConfig::step_limit); the process loops without waiting for a job, message, timer or user.{which}",
                self.config.step_limit
            ),
        )
    }

    /// Moves the clock forward by `millis` and fires what fell due.
    pub fn advance_clock(&mut self, millis: i64) -> Result<(), Rejection> {
        self.record(|| Command::AdvanceClock { millis });
        let target = self.now.saturating_add(millis.max(0));
        self.move_clock(target)
    }

    /// Sets the clock to an absolute time (epoch milliseconds) and fires what fell due.
    pub fn set_clock(&mut self, epoch_millis: i64) -> Result<(), Rejection> {
        self.record(|| Command::SetClock { epoch_millis });
        self.move_clock(epoch_millis)
    }

    fn move_clock(&mut self, epoch_millis: i64) -> Result<(), Rejection> {
        let start = self.begin();
        self.now = epoch_millis;
        self.event(
            ValueType::Clock,
            OtherIntent::Pinned,
            None,
            RecordValue::Clock { time: epoch_millis },
        );
        self.expire_messages();
        // Fire what is due, let the engine react, and repeat: a cycle whose next due date has
        // already passed fires again (bounded by the step limit).
        self.fire_due_jobs();
        self.run(start)
    }
}

impl Engine {
    /// Creates a process instance (latest version unless one is given), optionally starting
    /// before given elements and with terminate-after-element runtime instructions.
    pub fn create_instance(&mut self, request: CreateInstance) -> Result<Key, Rejection> {
        self.record(|| Command::CreateInstance(request.clone()));
        let start = self.begin();
        let proc = match request.version {
            None => self.latest.get(request.bpmn_process_id.as_str()).copied(),
            Some(v) => self
                .processes
                .iter()
                .position(|p| *p.bpmn_process_id == *request.bpmn_process_id && p.version == v)
                .map(|i| ProcIdx(i as u32)),
        };
        let Some(proc) = proc else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                match request.version {
                    None => format!(
                        "Expected to find process definition with process ID '{}', but none found",
                        request.bpmn_process_id
                    ),
                    Some(v) => format!(
                        "Expected to find process definition with process ID '{}' and version '{v}', but none found",
                        request.bpmn_process_id
                    ),
                },
            ));
        };
        let p = self.process(proc).clone();
        let mut start_elements = Vec::new();
        for id in &request.start_instructions {
            match p.find(id) {
                Some(e) => start_elements.push(e),
                None => {
                    return Err(Rejection::new(
                        RejectionType::InvalidArgument,
                        format!(
                            "Expected to create instance of process with start instructions but no element found with id '{id}'."
                        ),
                    ));
                }
            }
        }
        for id in &request.terminate_after {
            if p.find(id).is_none() {
                return Err(Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to create instance of process with runtime instructions but no element found with id '{id}'."
                    ),
                ));
            }
        }
        if start_elements.is_empty() && p.scope.none_start.is_none() {
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to create instance of process with none start event, but there is no such event in process '{}'",
                    p.bpmn_process_id
                ),
            ));
        }
        let pi = self.new_key();
        for (name, value) in &request.variables {
            self.set_pending_local(pi, proc, pi, name, SharedJson::new(value.clone()));
        }
        // The record keeps the request's documents (moved, not copied; shared when empty).
        let variables = if request.variables.is_empty() {
            self.empty_plain_document.clone()
        } else {
            Arc::new(request.variables)
        };
        if !request.terminate_after.is_empty() {
            self.terminate_after.insert(
                pi,
                request
                    .terminate_after
                    .iter()
                    .map(|s| Arc::from(s.as_str()))
                    .collect(),
            );
        }
        if !start_elements.is_empty() {
            self.start_instructions.insert(pi, start_elements);
        }
        let start_instructions = if request.start_instructions.is_empty() {
            self.no_start_instructions.clone()
        } else {
            Arc::new(request.start_instructions)
        };
        self.queue_process_activation(proc, pi, variables, start_instructions);
        self.run(start)?;
        Ok(pi)
    }

    /// Cancels a process instance: every element instance is terminated.
    pub fn cancel_instance(&mut self, process_instance_key: Key) -> Result<(), Rejection> {
        self.record(|| Command::CancelInstance {
            process_instance_key,
        });
        let start = self.begin();
        match self.instances.get(&process_instance_key) {
            Some(i) if i.element_type == BpmnElementType::Process => {
                if i.parent().is_some() {
                    return Err(Rejection::new(
                        RejectionType::InvalidState,
                        format!(
                            "Expected to cancel a process instance with key '{process_instance_key}', but it is created by a parent process instance. Cancel the root process instance '{}' instead.",
                            i.parent().map(|p| p.0).unwrap_or_default()
                        ),
                    ));
                }
            }
            _ => {
                return Err(Rejection::new(
                    RejectionType::NotFound,
                    format!(
                        "Expected to cancel a process instance with key '{process_instance_key}', but no such process was found"
                    ),
                ));
            }
        }
        self.queue
            .push_back(FollowUp::Terminate(process_instance_key));
        self.run(start)
    }

    /// Sets variables on a scope (an element instance or the process instance): with `local`,
    /// in exactly that scope; otherwise Zeebe's propagating merge.
    pub fn set_variables(
        &mut self,
        scope_key: Key,
        variables: VariableDocument,
        local: bool,
    ) -> Result<(), Rejection> {
        self.record(|| Command::SetVariables {
            scope_key,
            variables: variables.clone(),
            local,
        });
        let start = self.begin();
        if !self.instances.contains_key(&scope_key) {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to update variables for element with key '{scope_key}', but no such element was found"
                ),
            ));
        }
        let doc_key = self.new_key();
        let vars = Arc::new(variables);
        self.event(
            ValueType::VariableDocument,
            OtherIntent::Updated,
            Some(doc_key),
            RecordValue::VariableDocument {
                scope_key,
                local,
                variables: vars.clone(),
            },
        );
        if local {
            self.merge_local(scope_key, &vars);
        } else {
            self.merge_propagating(scope_key, &vars);
        }
        self.run(start)
    }
}
