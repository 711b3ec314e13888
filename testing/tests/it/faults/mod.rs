//! Faults, crashes and recovery: tool faults, model faults, side effects and the ledger,
//! invariants, time skipping, snapshots and restarts.

mod invariants;
mod models;
mod snapshots;
mod tools;
