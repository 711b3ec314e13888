//! `GET /v2/topology`, `GET /v2/status`, `GET /v2/license`.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use baton_rest::system::{BrokerInfo, LicenseResponse, Partition, TopologyResponse};

use super::{AppState, json, no_content};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/topology", get(topology))
        .route("/v2/status", get(status))
        .route("/v2/license", get(license))
}

/// One broker with one healthy partition, the leader: what a single-node cluster reports.
async fn topology(State(state): State<AppState>) -> Response {
    let version = crate::GATEWAY_VERSION.to_owned();
    let change = state.core.raw(|core| core.change_id).await.unwrap_or(0);
    json(
        StatusCode::OK,
        &TopologyResponse {
            brokers: vec![BrokerInfo {
                node_id: 0,
                host: state.addr.ip().to_string(),
                port: i32::from(state.addr.port()),
                partitions: vec![Partition {
                    partition_id: 1,
                    role: "leader".into(),
                    health: "healthy".into(),
                    state: "ACTIVE".into(),
                }],
                version: version.clone(),
                broker_id: 0,
            }],
            cluster_id: None,
            cluster_size: 1,
            partitions_count: 1,
            replication_factor: 1,
            gateway_version: version,
            last_completed_change_id: if change == 0 {
                "-1".into()
            } else {
                change.to_string()
            },
        },
    )
}

/// 204: the cluster has a healthy partition.
async fn status() -> Response {
    no_content()
}

async fn license() -> Response {
    json(
        StatusCode::OK,
        &LicenseResponse {
            valid_license: false,
            license_type: "unknown".into(),
            is_commercial: false,
            expires_at: None,
        },
    )
}
