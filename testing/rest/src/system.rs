//! `GET /v2/topology`, `GET /v2/license`, `PUT /v2/clock`.

use serde::{Deserialize, Serialize};

/// `GET /v2/topology`: the brokers and their partitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyResponse {
    pub brokers: Vec<BrokerInfo>,
    pub cluster_id: Option<String>,
    pub cluster_size: i32,
    pub partitions_count: i32,
    pub replication_factor: i32,
    pub gateway_version: String,
    pub last_completed_change_id: String,
}

/// One broker of the topology.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokerInfo {
    pub node_id: i32,
    pub host: String,
    pub port: i32,
    pub partitions: Vec<Partition>,
    pub version: String,
    /// 8.10: the broker's id.
    pub broker_id: i32,
}

/// One partition of a broker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Partition {
    pub partition_id: i32,
    /// `leader`, `follower` or `inactive`.
    pub role: String,
    /// `healthy`, `unhealthy` or `dead`.
    pub health: String,
    /// 8.10: `ACTIVE`, ...
    pub state: String,
}

/// `GET /v2/license`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LicenseResponse {
    pub valid_license: bool,
    pub license_type: String,
    pub is_commercial: bool,
    /// RFC 3339, or `null` when the license does not expire.
    pub expires_at: Option<String>,
}

/// `PUT /v2/clock`: pin the clock at an instant (epoch milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClockPinRequest {
    pub timestamp: i64,
}
