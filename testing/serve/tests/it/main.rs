//! Behaviour tests of `baton serve`: a server on a free loopback port per test, driven over
//! HTTP/1.1 by a small synchronous client.

mod actuator;
mod concurrency;
mod errors;
mod jobs;
mod messages;
mod process_instances;
mod searches;
mod support;
mod system;
