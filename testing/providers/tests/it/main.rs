//! baton-providers' behaviour tests: selection, the exact requests, fake providers per wire
//! format on 127.0.0.1, failures, and the template recorded end to end.

mod end_to_end;
mod errors;
mod fake;
mod judge;
mod live;
mod requests;
mod selection;
mod support;
