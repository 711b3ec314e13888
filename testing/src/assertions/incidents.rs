//! Checks of active incidents (here or in called processes) and of whether the run failed.

use baton_engine::runtime::ErrorType;

use super::{Outcome, Subject, state_word};

/// An incident to look for; unset fields match anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IncidentExpectation {
    pub element_id: Option<String>,
    pub error_type: Option<ErrorType>,
    pub message_contains: Option<String>,
}

impl IncidentExpectation {
    /// An incident at this element.
    pub fn at(element_id: &str) -> Self {
        IncidentExpectation {
            element_id: Some(element_id.to_owned()),
            ..Default::default()
        }
    }

    /// Any incident.
    pub fn any() -> Self {
        IncidentExpectation::default()
    }

    /// Of this error type.
    pub fn of_type(mut self, error_type: baton_engine::runtime::ErrorType) -> Self {
        self.error_type = Some(error_type);
        self
    }

    /// With a message containing this text.
    pub fn message_contains(mut self, text: &str) -> Self {
        self.message_contains = Some(text.to_owned());
        self
    }
}

impl<'a> Subject<'a> {
    pub(super) fn incidents(&self) -> Vec<baton_engine::runtime::IncidentView> {
        let family = self.history.descendants(self.instance);
        self.engine
            .incidents()
            .into_iter()
            .filter(|i| {
                family.contains(&i.process_instance_key) || i.process_instance_key == self.instance
            })
            .collect()
    }

    pub(super) fn check_has_incidents(&self, yes: bool) -> Outcome {
        let incidents = self.incidents();
        match (yes, incidents.is_empty()) {
            (true, true) => Err((
                format!("{} to have an active incident", self.who()),
                "it has none".into(),
            )),
            (false, false) => Err((
                format!("{} to have no active incident", self.who()),
                format!(
                    "it has {}: {}",
                    incidents.len(),
                    incidents
                        .iter()
                        .map(|i| format!("{} at \"{}\"", i.error_type, i.element_id))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn check_incident(&self, e: &IncidentExpectation) -> Outcome {
        let incidents = self.incidents();
        let found = incidents.iter().any(|i| {
            e.element_id.as_ref().is_none_or(|id| *id == i.element_id)
                && e.error_type.is_none_or(|t| t == i.error_type)
                && e.message_contains
                    .as_ref()
                    .is_none_or(|m| i.error_message.contains(m.as_str()))
        });
        if found {
            return Ok(());
        }
        let mut want = "an active incident".to_owned();
        if let Some(t) = e.error_type {
            want.push_str(&format!(" of type {t}"));
        }
        if let Some(id) = &e.element_id {
            want.push_str(&format!(" at \"{id}\""));
        }
        if let Some(m) = &e.message_contains {
            want.push_str(&format!(" with a message containing \"{m}\""));
        }
        let actual = if incidents.is_empty() {
            "there is no active incident".to_owned()
        } else {
            format!(
                "the active incidents are: {}",
                incidents
                    .iter()
                    .map(|i| format!(
                        "{} at \"{}\": {}",
                        i.error_type, i.element_id, i.error_message
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        Err((format!("{} to have {want}", self.who()), actual))
    }

    pub(super) fn check_failed(&self, message: Option<&str>) -> Outcome {
        let incidents = self.incidents();
        let mut texts: Vec<String> = self.errors.iter().map(|e| e.to_string()).collect();
        texts.extend(incidents.iter().map(|i| {
            format!(
                "{} at \"{}\": {}",
                i.error_type, i.element_id, i.error_message
            )
        }));
        let want = match message {
            Some(m) => format!("the run of {} to have failed with \"{m}\"", self.who()),
            None => format!("the run of {} to have failed", self.who()),
        };
        if texts.is_empty() {
            return Err((
                want,
                format!(
                    "it has no error and no incident (it is {})",
                    state_word(self.state())
                ),
            ));
        }
        match message {
            Some(m) if !texts.iter().any(|t| t.contains(m)) => {
                Err((want, format!("its failures are: {}", texts.join("; "))))
            }
            _ => Ok(()),
        }
    }
}
