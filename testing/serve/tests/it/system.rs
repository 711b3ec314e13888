use serde_json::json;

use crate::support::Api;

#[test]
fn topology_reports_one_healthy_leader_partition_on_the_bound_address() {
    let api = Api::start();
    let (status, body) = api.get("/v2/topology");
    assert_eq!(status, 200);
    let port = api.server.as_ref().unwrap().addr().port();
    assert_eq!(
        body,
        json!({
            "brokers": [{
                "nodeId": 0, "host": "127.0.0.1", "port": port,
                "partitions": [{"partitionId": 1, "role": "leader", "health": "healthy", "state": "ACTIVE"}],
                "version": baton_serve::GATEWAY_VERSION, "brokerId": 0
            }],
            "clusterId": null, "clusterSize": 1, "partitionsCount": 1, "replicationFactor": 1,
            "gatewayVersion": baton_serve::GATEWAY_VERSION, "lastCompletedChangeId": "-1"
        })
    );
}

#[test]
fn status_is_204_and_license_is_not_commercial() {
    let api = Api::start();
    assert_eq!(api.get("/v2/status"), (204, serde_json::Value::Null));
    let (status, body) = api.get("/v2/license");
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"validLicense": false, "licenseType": "unknown", "isCommercial": false, "expiresAt": null})
    );
}
