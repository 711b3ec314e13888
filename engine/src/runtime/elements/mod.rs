//! Element instances: the lifecycle skeleton every element goes through (`processor`) and the
//! behaviour of each element family.

pub(crate) mod ad_hoc;
pub(crate) mod call_activity;
pub(crate) mod gateways;
pub(crate) mod multi_instance;
pub(crate) mod processor;
pub(crate) mod tasks;

pub use ad_hoc::INNER_INSTANCE_SUFFIX;
