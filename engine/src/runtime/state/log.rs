//! The event log: every record written, in order.

use crate::runtime::records::Record;

/// The records written so far and the position of the last one (positions count every record
/// written, kept or not: see `EngineConfig::keep_records`).
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordLog {
    pub(crate) records: Vec<Record>,
    pub(crate) position: u64,
}
