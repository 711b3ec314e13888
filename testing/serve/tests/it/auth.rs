//! Binding rules and credentials.

use baton_serve::{Auth, ServeConfig, Server};
use serde_json::json;

use crate::support::{Api, client};

#[test]
fn a_non_loopback_address_needs_credentials_or_the_unsafe_flag() {
    let config = ServeConfig {
        host: "0.0.0.0".parse().unwrap(),
        port: 0,
        ..ServeConfig::default()
    };
    let error = Server::start(config).err().expect("refused").to_string();
    assert_eq!(
        error,
        "refusing to listen on 0.0.0.0 without credentials: anyone who reaches it could deploy and run processes; set credentials, or say it is unsafe on purpose"
    );
}

#[test]
fn with_credentials_every_request_must_carry_them() {
    let api = Api::with(ServeConfig {
        port: 0,
        auth: Some(Auth::Bearer("s3cret".into())),
        ..ServeConfig::default()
    });
    let (status, body) = api.get("/v2/topology");
    assert_eq!(status, 401);
    assert_eq!(body["title"], "UNAUTHORIZED");
    let mut response = client()
        .get(format!("{}/v2/topology", api.base))
        .header("authorization", "Bearer s3cret")
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let _ = response.body_mut().read_to_string();
    let response = client()
        .get(format!("{}/v2/topology", api.base))
        .header("authorization", "Bearer s3cre7")
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let (status, _) = api.post("/v2/process-instances", json!({"processDefinitionId": "x"}));
    assert_eq!(status, 401, "checked before anything else");
    assert_eq!(
        format!("{:?}", Auth::Bearer("s3cret".into())),
        "Bearer(***)"
    );
}
