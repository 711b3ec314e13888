//! Benchmarks of baton live in `benches/`; run them with `cargo bench -p baton-benches`.
