//! What an element family does at each step of the lifecycle: Zeebe's `BpmnElementProcessor`
//! (activate, complete, terminate) and, for the families that hold children,
//! `BpmnElementContainerProcessor` (a child's path completing or completed, a child
//! terminated). The lifecycle skeleton (`processor`) writes the state transitions, runs the
//! mappings and execution listeners and calls these hooks; each family implements them once.

use crate::runtime::engine::Engine;
use crate::runtime::records::Key;
use crate::runtime::state::instances::ElementInstance;
use crate::runtime::step::Step;

/// The behaviour of one element family. Every method gets the engine and the key of the
/// element instance (or, for the container hooks, of the container).
pub(crate) trait ElementBehavior: Sync {
    /// ACTIVATING, before the input mappings.
    fn before_input_mappings(&self, _engine: &mut Engine, _key: Key) {}

    /// Whether the element's own input and output mappings and execution listeners run on this
    /// instance. Not on the instances that stand in for an element (a multi-instance body, an
    /// ad-hoc inner instance): those run on the element's own instances.
    fn runs_element_steps(&self) -> bool {
        true
    }

    /// After the input mappings and the start listeners (Zeebe's `finalizeActivation`): open
    /// what the element waits for and move to ACTIVATED, or pass through to COMPLETING.
    fn activate(&self, engine: &mut Engine, key: Key) -> Step;

    /// COMPLETING, before the end listeners (Zeebe's `onComplete`): the element's output
    /// mappings and what it leaves behind. By default: the output mappings, then the event
    /// subscriptions are closed.
    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        engine.apply_element_output_mappings(key, false)?;
        engine.unsubscribe_from_events(key);
        Ok(())
    }

    /// After the end listeners (Zeebe's `finalizeCompletion`), before COMPLETED: whether the
    /// completing flow node ends a path of its flow scope. By default, when it has no outgoing
    /// sequence flow.
    fn ends_path(&self, engine: &Engine, key: Key) -> bool {
        engine.has_no_outgoing_flow(key)
    }

    /// After COMPLETED: the flow goes on from the completed flow node, by default along all
    /// its outgoing sequence flows or, where the path ends, to its flow scope `scope`.
    fn leave(&self, engine: &mut Engine, completed: &ElementInstance, scope: Key, ends_path: bool) {
        engine.leave_by_outgoing_flows(completed, scope, ends_path);
    }

    /// TERMINATING, after its job, subscriptions and incidents are gone (Zeebe's
    /// `onTerminate`): end what the element holds, and TERMINATED once nothing is left. By
    /// default the instance holds nothing more.
    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.finalize_termination(key);
    }

    /// Containers: a path inside `scope` ends with `child`, before the child's COMPLETED
    /// (Zeebe's `beforeExecutionPathCompleted`: collecting output, completion conditions).
    fn child_completing(&self, _engine: &mut Engine, _scope: Key, _child: Key) -> Step {
        Ok(())
    }

    /// Containers: a path inside the ACTIVATED `scope` ended with `child` (Zeebe's
    /// `afterExecutionPathCompleted`). By default the container completes when nothing inside
    /// it is active any more.
    fn child_completed(&self, engine: &mut Engine, scope: Key, _child: &ElementInstance) {
        engine.complete_when_idle(scope);
    }

    /// Containers: `child` was terminated on its own while `scope` is ACTIVATED and not being
    /// emptied (Zeebe's `onChildTerminated`).
    fn child_terminated(&self, _engine: &mut Engine, _scope: Key, _child: &ElementInstance) {}
}
