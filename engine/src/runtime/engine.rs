//! The engine: its state, the processing queue and the run loop, and [`Engine::apply`], the
//! one way a client command enters.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::runtime::command::{Applied, Command, UnrecordedCommands};
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::records::{
    BpmnElementType, ElementRef, FIRST_KEY, Intent, Key, OtherIntent, ProcIdx,
    ProcessInstanceIntent, ProcessInstanceValue, Record, RecordType, RecordValue, Rejection,
    RejectionType, SharedVariableDocument, ValueType, VariableDocument, share_document,
};
use crate::runtime::state::cluster_variables::ClusterVariables;
use crate::runtime::state::compensation::CompensationState;
use crate::runtime::state::conditionals::ConditionalState;
use crate::runtime::state::deployments::Deployments;
use crate::runtime::state::feel::FeelState;
use crate::runtime::state::incidents::Incident;
use crate::runtime::state::instances::{InstanceStore, PendingActivations, ProcessInstanceSummary};
use crate::runtime::state::jobs::JobStore;
use crate::runtime::state::log::RecordLog;
use crate::runtime::state::messages::MessageState;
use crate::runtime::state::signals::SignalSubscriptions;
use crate::runtime::state::timers::TimerState;
use crate::runtime::state::user_tasks::UserTask;
use crate::runtime::step::FollowUp;

/// Settings of an engine.
///
/// # Limits
///
/// Zeebe has none of these: they stop a test whose process runs away (a loop without a wait
/// state, a timer that keeps firing, instances started without end) with a message that names
/// what ran away, instead of running out of memory or time. Each counts what one command (one
/// public call, or one [`Engine::apply`]) causes; when one is passed, the command stops with a
/// `PROCESSING_ERROR` rejection and what it did so far stays done. The defaults are far above
/// what real processes do in a test; raise one (the fields are public, also through
/// [`Engine::config_mut`]) when a test means to go further.
///
/// - [`step_limit`](Self::step_limit): follow-up commands processed (100,000).
/// - [`timer_limit`](Self::timer_limit): timers fired (10,000).
/// - [`instance_limit`](Self::instance_limit): process instances created (10,000).
/// - [`record_limit`](Self::record_limit): records written to the log (1,000,000).
///
/// The clock itself ends at 9999-12-30T22:00:00Z (the last instant dates can be computed
/// for): moving it past that, or before the epoch, is rejected, and a timer due after it is an
/// incident. FEEL evaluations have their own limits (`baton_feel::Limits`: nesting, steps, list
/// and string sizes).
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The most follow-up commands one public call may process before it stops with an error
    /// (a loop without a wait state, e.g. script tasks in a cycle).
    pub step_limit: usize,
    /// The most timers one public call may fire (a cycle with a zero interval, a timer start
    /// event whose instances trigger it again).
    pub timer_limit: usize,
    /// The most process instances one public call may create (timer, message and signal start
    /// events, call activities calling their own process).
    pub instance_limit: usize,
    /// The most records one public call may write (a job completion with a million variables).
    pub record_limit: usize,
    /// The engine clock at start, epoch milliseconds (default 2025-01-01T00:00:00Z).
    pub start_time_ms: i64,
    /// Keep the event log (the bench turns it off to measure the engine alone).
    pub keep_records: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            step_limit: 100_000,
            timer_limit: 10_000,
            instance_limit: 10_000,
            record_limit: 1_000_000,
            start_time_ms: 1_735_689_600_000,
            keep_records: true,
        }
    }
}

/// The deterministic BPMN engine. See the module documentation.
///
/// Its state is grouped by who owns it: what is deployed, the event log, the processing queue,
/// the element instances (with what activations about to happen carry), and one part per
/// behaviour (jobs, incidents, user tasks, timers, messages, signals, conditional events,
/// compensation, FEEL evaluation, recorded commands).
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) config: EngineConfig,
    /// The engine clock, epoch milliseconds.
    pub(crate) now: i64,
    pub(crate) next_key: Key,
    /// Processes (every version, the latest per id), decisions and forms.
    pub(crate) deployed: Deployments,
    pub(crate) log: RecordLog,
    /// Follow-up commands waiting to be processed, in order.
    pub(crate) queue: VecDeque<FollowUp>,
    /// Suspended process instances, each with the follow-up commands held back until it
    /// resumes, in order (see `behaviors::suspension`).
    pub(crate) suspended: BTreeMap<Key, VecDeque<FollowUp>>,
    /// Steps processed by the current public call.
    pub(crate) steps: usize,
    /// Timers fired and process instances created by the current public call.
    pub(crate) timers_fired: usize,
    pub(crate) instances_created: usize,
    pub(crate) instances: InstanceStore,
    /// What the engine remembers of every process instance, ended ones too.
    pub(crate) process_instances: BTreeMap<Key, ProcessInstanceSummary>,
    /// What element instances about to be activated carry.
    pub(crate) pending: PendingActivations,
    /// Terminate-after-element runtime instructions, by process instance.
    pub(crate) terminate_after: FxHashMap<Key, Vec<Arc<str>>>,
    pub(crate) jobs: JobStore,
    pub(crate) incidents: BTreeMap<Key, Incident>,
    pub(crate) user_tasks: BTreeMap<Key, UserTask>,
    pub(crate) timers: TimerState,
    /// Message subscriptions, buffered messages, message start events.
    pub(crate) messaging: MessageState,
    pub(crate) signal_subscriptions: SignalSubscriptions,
    pub(crate) conditionals: ConditionalState,
    pub(crate) compensation: CompensationState,
    pub(crate) feel: FeelState,
    /// What `camunda.vars.*` reads in FEEL.
    pub(crate) cluster_variables: ClusterVariables,
    /// Global user task listeners, in creation order (a transition keeps the list it began with).
    pub(crate) global_task_listeners: Arc<Vec<crate::runtime::records::GlobalTaskListener>>,
    pub(crate) empty: SharedEmpties,
    /// The commands carried out, when recording (see [`Engine::record_commands`]).
    pub(crate) recorded: RecordedCommands,
}

/// Empty values shared by the records of commands that carry none.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedEmpties {
    /// Job completions and other commands without variables.
    pub(crate) document: Arc<SharedVariableDocument>,
    /// Instance creations without variables.
    pub(crate) plain_document: Arc<VariableDocument>,
    /// Instance creations without start instructions.
    pub(crate) start_instructions: Arc<Vec<String>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineConfig::default())
    }
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            now: config.start_time_ms,
            config,
            next_key: FIRST_KEY,
            deployed: Deployments::default(),
            log: RecordLog::default(),
            queue: VecDeque::new(),
            suspended: BTreeMap::new(),
            steps: 0,
            timers_fired: 0,
            instances_created: 0,
            instances: InstanceStore::default(),
            process_instances: BTreeMap::new(),
            pending: PendingActivations::default(),
            terminate_after: FxHashMap::default(),
            jobs: JobStore::default(),
            incidents: BTreeMap::new(),
            user_tasks: BTreeMap::new(),
            timers: TimerState::default(),
            messaging: MessageState::default(),
            signal_subscriptions: BTreeMap::new(),
            conditionals: ConditionalState::default(),
            compensation: CompensationState::default(),
            feel: FeelState::default(),
            cluster_variables: ClusterVariables::default(),
            global_task_listeners: Arc::default(),
            empty: SharedEmpties::default(),
            recorded: RecordedCommands::default(),
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The settings, to change a limit (see [`EngineConfig`]); the start time and whether
    /// records are kept only matter when the engine is created.
    pub fn config_mut(&mut self) -> &mut EngineConfig {
        &mut self.config
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

    /// Appends a record to the log (or only counts its position, when records are not kept).
    pub(crate) fn write(
        &mut self,
        record_type: RecordType,
        value_type: ValueType,
        intent: Intent,
        key: Option<Key>,
        value: RecordValue,
    ) {
        self.append(record_type, value_type, intent, key, value, None);
    }

    #[inline]
    fn append(
        &mut self,
        record_type: RecordType,
        value_type: ValueType,
        intent: Intent,
        key: Option<Key>,
        value: RecordValue,
        rejection: Option<Box<Rejection>>,
    ) {
        self.log.position += 1;
        if self.config.keep_records {
            self.log.records.push(Record {
                position: self.log.position,
                key,
                timestamp: self.now,
                record_type,
                value_type,
                intent,
                rejection,
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

    /// Writes a command's rejection and returns it.
    pub(crate) fn reject(
        &mut self,
        value_type: ValueType,
        intent: Intent,
        key: Option<Key>,
        value: RecordValue,
        rejection: Rejection,
    ) -> Rejection {
        let kept = self
            .config
            .keep_records
            .then(|| Box::new(rejection.clone()));
        self.append(
            RecordType::CommandRejection,
            value_type,
            intent,
            key,
            value,
            kept,
        );
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
        &self.deployed.processes[proc.0 as usize]
    }

    /// Runs queued follow-up commands until the queue is empty, or fails once a limit of
    /// [`EngineConfig`] is passed.
    /// Timers that are due (their date passed, or the clock moved past them) fire once the
    /// queue is empty, all due ones at a time; then the engine reacts, and so on: a timer the
    /// reaction makes due fires too (bounded by the timer limit).
    pub(crate) fn run(&mut self, start_position: u64) -> Result<(), Rejection> {
        loop {
            // Variables changed by the command itself (a job's or a user's variables).
            if !self.conditionals.changes.is_empty() {
                self.check_conditionals();
            }
            while let Some(follow_up) = self.queue.pop_front() {
                if !self.suspended.is_empty()
                    && let Some(pi) = self.held_back_by(&follow_up)
                    && let Some(held) = self.suspended.get_mut(&pi)
                {
                    held.push_back(follow_up);
                    continue;
                }
                self.steps += 1;
                self.within_limits(start_position)?;
                self.process_follow_up(follow_up);
                if !self.conditionals.changes.is_empty() {
                    self.check_conditionals();
                }
            }
            self.within_limits(start_position)?;
            if !self.timers.any_due(self.now) {
                return Ok(());
            }
            self.fire_due_timers();
            self.within_limits(start_position)?;
        }
    }

    /// Starts a public command: resets the counters of the limits and returns the position to
    /// report from.
    pub(crate) fn begin(&mut self) -> u64 {
        self.steps = 0;
        self.timers_fired = 0;
        self.instances_created = 0;
        self.log.position
    }

    /// Stops the current command (clearing what it queued) once it passed a limit.
    fn within_limits(&mut self, start_position: u64) -> Result<(), Rejection> {
        let c = &self.config;
        let records = (self.log.position - start_position) as usize;
        let message = if self.steps > c.step_limit {
            self.step_limit_message(start_position)
        } else if self.timers_fired > c.timer_limit {
            self.timer_limit_message(start_position)
        } else if self.instances_created > c.instance_limit {
            self.instance_limit_message(start_position)
        } else if records > c.record_limit {
            format!(
                "Stopped after writing {records} records in one command (more than EngineConfig::record_limit, {}).{}",
                c.record_limit,
                self.most_often(
                    start_position,
                    |r| Some(format!("{} {}", r.value_type.as_str(), r.intent.as_str())),
                    "Records written most often"
                )
            )
        } else {
            return Ok(());
        };
        self.queue.clear();
        Err(Rejection::new(RejectionType::ProcessingError, message))
    }

    /// What this command's records that `name` names were about, most often first (five at
    /// most), as " {title}: 'a' (n times), 'b' (m times)." (nothing when the log is not kept).
    fn most_often(
        &self,
        start_position: u64,
        name: impl Fn(&Record) -> Option<String>,
        title: &str,
    ) -> String {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in self
            .log
            .records
            .iter()
            .rev()
            .take_while(|r| r.position > start_position)
        {
            if let Some(id) = name(r) {
                *counts.entry(id).or_default() += 1;
            }
        }
        let mut top: Vec<(String, usize)> = counts.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if top.is_empty() {
            return String::new();
        }
        let names: Vec<String> = top
            .iter()
            .take(5)
            .map(|(id, n)| match n {
                1 => format!("{id} (once)"),
                n => format!("{id} ({n} times)"),
            })
            .collect();
        format!(" {title}: {}.", names.join(", "))
    }

    fn step_limit_message(&self, start_position: u64) -> String {
        let which = self.most_often(
            start_position,
            |r| match &r.value {
                RecordValue::ProcessInstance(v)
                    if r.intent
                        == Intent::ProcessInstance(ProcessInstanceIntent::ElementActivated) =>
                {
                    match v.element_ref {
                        ElementRef::Element(e) => {
                            Some(format!("'{}'", self.process(v.proc).element(e).id))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            "Elements activated most often",
        );
        format!(
            "Stopped after {} steps without reaching a wait state (the limit is EngineConfig::step_limit); the process loops without waiting for a job, message, timer or user.{which}",
            self.config.step_limit
        )
    }

    fn timer_limit_message(&self, start_position: u64) -> String {
        let which = self.most_often(
            start_position,
            |r| match &r.value {
                RecordValue::Timer(t) if r.intent == Intent::Other(OtherIntent::Triggered) => {
                    let p = self.process(t.proc);
                    Some(format!(
                        "'{}' of process '{}'",
                        p.element(t.target_element).id,
                        p.bpmn_process_id
                    ))
                }
                _ => None,
            },
            "Timers fired most often",
        );
        format!(
            "Stopped after firing {} timers in one command (the limit is EngineConfig::timer_limit); a timer keeps falling due at once (a cycle with a zero interval, or one the process sets again each time it fires).{which}",
            self.config.timer_limit
        )
    }

    fn instance_limit_message(&self, start_position: u64) -> String {
        let which = self.most_often(
            start_position,
            |r| match &r.value {
                RecordValue::ProcessInstance(v)
                    if v.element_type == BpmnElementType::Process
                        && r.intent
                            == Intent::ProcessInstance(
                                ProcessInstanceIntent::ElementActivating,
                            ) =>
                {
                    Some(format!("'{}'", self.process(v.proc).bpmn_process_id))
                }
                _ => None,
            },
            "Processes started most often",
        );
        format!(
            "Stopped after creating {} process instances in one command (more than EngineConfig::instance_limit, {}); a start event or call activity keeps starting instances.{which}",
            self.instances_created, self.config.instance_limit
        )
    }
}

impl Engine {}

impl Engine {
    /// Carries out a command: the one way a client's request enters the engine (every method
    /// below builds its command and applies it). A rejection changes nothing. When the engine
    /// records (see [`Engine::record_commands`]), the command is kept here, and only here.
    pub fn apply(&mut self, command: Command) -> Result<Applied, Rejection> {
        self.recorded.note(&command);
        let done = |()| Applied::Done;
        match command {
            Command::Deploy { resources } => self.apply_deploy(&resources).map(Applied::Deployed),
            Command::CreateInstance(request) => {
                self.apply_create_instance(request).map(Applied::Key)
            }
            Command::CancelInstance {
                process_instance_key,
            } => self.apply_cancel_instance(process_instance_key).map(done),
            Command::SuspendInstance {
                process_instance_key,
            } => self.apply_suspend_instance(process_instance_key).map(done),
            Command::ResumeInstance {
                process_instance_key,
            } => self.apply_resume_instance(process_instance_key).map(done),
            Command::SetVariables {
                scope_key,
                variables,
                local,
            } => self
                .apply_set_variables(scope_key, variables, local)
                .map(done),
            Command::PublishMessage(message) => {
                self.apply_publish_message(message).map(Applied::Key)
            }
            Command::CorrelateMessage {
                name,
                correlation_key,
                variables,
            } => self
                .apply_correlate_message(&name, &correlation_key, variables)
                .map(Applied::Correlated),
            Command::BroadcastSignal { name, variables } => self
                .apply_broadcast_signal(&name, variables)
                .map(Applied::Key),
            Command::EvaluateConditionalStartEvents {
                variables,
                process_definition_key,
            } => self
                .apply_evaluate_conditional_start_events(variables, process_definition_key)
                .map(Applied::Keys),
            Command::ActivateJobs {
                job_type,
                worker,
                timeout_ms,
                max_jobs,
            } => Ok(Applied::Keys(
                self.apply_activate_jobs(&job_type, &worker, timeout_ms, max_jobs),
            )),
            Command::PushJob {
                job_key,
                worker,
                timeout_ms,
            } => self.apply_push_job(job_key, &worker, timeout_ms).map(done),
            Command::CompleteJob {
                job_key,
                variables,
                result,
            } => self
                .apply_complete_job(job_key, share_document(variables), result)
                .map(done),
            Command::FailJob {
                job_key,
                retries,
                error_message,
                retry_backoff_ms,
                variables,
            } => self
                .apply_fail_job(
                    job_key,
                    retries,
                    &error_message,
                    retry_backoff_ms,
                    variables,
                )
                .map(done),
            Command::ThrowError {
                job_key,
                error_code,
                error_message,
                variables,
            } => self
                .apply_throw_error(job_key, &error_code, &error_message, variables)
                .map(done),
            Command::UpdateJobRetries { job_key, retries } => {
                self.apply_update_job_retries(job_key, retries).map(done)
            }
            Command::CompleteUserTask {
                user_task_key,
                variables,
            } => self
                .apply_complete_user_task(user_task_key, variables)
                .map(done),
            Command::AssignUserTask {
                user_task_key,
                assignee,
            } => self
                .apply_assign_user_task(user_task_key, assignee.as_deref())
                .map(done),
            Command::UpdateUserTask {
                user_task_key,
                changes,
            } => self
                .apply_update_user_task(user_task_key, changes)
                .map(done),
            Command::ResolveIncident { incident_key } => {
                self.apply_resolve_incident(incident_key).map(done)
            }
            Command::EvaluateDecision {
                decision_id,
                variables,
            } => self
                .apply_evaluate_decision(&decision_id, variables)
                .map(Applied::Evaluated),
            Command::AdvanceClock { millis } => self.apply_advance_clock(millis).map(done),
            Command::SetClock { epoch_millis } => self.apply_set_clock(epoch_millis).map(done),
            Command::CreateGlobalTaskListener(listener) => {
                self.apply_create_global_task_listener(listener).map(done)
            }
            Command::SetClusterVariables {
                tenant_id,
                variables,
            } => self
                .apply_set_cluster_variables(tenant_id, variables)
                .map(done),
            Command::MockDecision {
                decision_id,
                output,
            } => {
                self.apply_mock_decision(decision_id, output);
                Ok(Applied::Done)
            }
        }
    }

    /// Starts (`true`) or stops keeping every command this engine carries out (see
    /// [`Engine::recorded_commands`]). Deployments are kept either way. What was kept stays; a
    /// copy of the engine records (or not) on its own from where it was copied.
    pub fn record_commands(&mut self, on: bool) {
        self.recorded.recording = on;
    }

    /// Every command this engine carried out since it was created, in order (rejected ones too:
    /// a replay rejects them again), when it recorded them all: applied to a fresh engine with
    /// the same configuration they give the same records. An error says how many commands were
    /// carried out while not recording, or that a model built in code was deployed
    /// ([`Engine::deploy_definitions`] has no resource to replay).
    pub fn recorded_commands(&self) -> Result<&[Command], UnrecordedCommands> {
        match self.recorded.missed {
            0 => Ok(&self.recorded.commands),
            missed => Err(UnrecordedCommands { missed }),
        }
    }

    /// The resources of every deployment command this engine carried out, in order, rejected
    /// ones too (deployments are kept whether or not the engine records): what a coverage
    /// report shows the deployed BPMN and DMN from.
    pub fn deployed_resources(&self) -> impl Iterator<Item = &crate::deploy::Resource> {
        self.recorded
            .commands
            .iter()
            .filter_map(|c| match c {
                Command::Deploy { resources } => Some(resources.iter()),
                _ => None,
            })
            .flatten()
    }

    /// Counts a change no command can replay (see [`Engine::recorded_commands`]).
    pub(crate) fn record_unreplayable(&mut self) {
        self.recorded.missed += 1;
    }
}

/// The commands an engine carried out (see [`Engine::record_commands`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordedCommands {
    recording: bool,
    /// Shared between copies of the engine until one of them records more: copying a
    /// deployment's engine into a test copies no command.
    commands: Arc<Vec<Command>>,
    /// Commands carried out while not recording, and deployments of models built in code.
    missed: u64,
}

impl RecordedCommands {
    /// Keeps `command` when recording; counts it as missed otherwise. Deployments are kept
    /// either way: they are few and their text is shared, so a test on a copy of a deployed
    /// engine can record from its first command.
    #[inline]
    pub(crate) fn note(&mut self, command: &Command) {
        if self.recording || matches!(command, Command::Deploy { .. }) {
            self.keep(command.clone());
        } else {
            self.missed += 1;
        }
    }

    /// [`RecordedCommands::note`] for a command that is built only when recording.
    #[inline]
    pub(crate) fn note_with(&mut self, command: impl FnOnce() -> Command) {
        if self.recording {
            self.keep(command());
        } else {
            self.missed += 1;
        }
    }

    /// Keeps a command: out of line, so the copies a command makes of its arguments stay out
    /// of [`Engine::apply`] (recording is the rare case).
    #[cold]
    #[inline(never)]
    fn keep(&mut self, command: Command) {
        Arc::make_mut(&mut self.commands).push(command);
    }
}
