//! Messages as Zeebe correlates them.
//!
//! A catch element (intermediate catch event, receive task, boundary event, event sub-process
//! start, event after an event-based gateway) opens a subscription when its element instance (or
//! scope) is activated; the message name and correlation key are evaluated once, then. The
//! subscription lives on two sides, as in Zeebe: the process side (`PROCESS_MESSAGE_SUBSCRIPTION`
//! CREATING → CREATED → CORRELATED / DELETING → DELETED) and the message side
//! (`MESSAGE_SUBSCRIPTION` CREATED → CORRELATING → CORRELATED / DELETED); the two talk through
//! follow-up commands in the FIFO queue, so the record order is Zeebe's.
//!
//! Publishing writes `MESSAGE PUBLISHED`, reserves the message for at most one subscription per
//! BPMN process id (catch subscriptions first, then message start events), and buffers it for its
//! time to live; a subscription opened later takes the oldest buffered message not yet
//! correlated to its process id. Message start events subscribe for the latest version of a
//! process; a process instance started by a message with a correlation key blocks further starts
//! with that key until it ends, then the next buffered message starts the next instance.

pub(crate) mod publish;
pub(crate) mod start_events;
pub(crate) mod subscriptions;
pub(crate) mod views;

pub use views::{BufferedMessageView, MessageSubscriptionView};
