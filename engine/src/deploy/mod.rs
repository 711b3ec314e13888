//! Deployment: parse every resource (BPMN, or DMN when the name ends with `.dmn`), apply Zeebe's
//! deploy-time rules, and either hand out the checked models or every problem at once.
//!
//! This is the one entry point the engine and the `baton` command call. A deployment is all or
//! nothing, as in Zeebe: one bad resource rejects the whole deployment.

mod checks;
mod expressions;
mod loops;

use std::sync::Arc;

use arcstr::ArcStr;

use crate::diagnostics::{Diagnostic, Diagnostics, Rule};
use crate::dmn::{self, Drg};
use crate::model::{self, Definitions, MAX_RESOURCE_BYTES};
use crate::source::Source;

/// One file of a deployment.
///
/// The content is checked for UTF-8 once, when the resource is made, and the text is then
/// shared (not copied) by every deployment of it and by the [`Source`] of what deploys.
#[derive(Debug, Clone)]
pub struct Resource {
    /// How diagnostics name the file (usually its path).
    pub name: String,
    content: Content,
}

#[derive(Debug, Clone)]
enum Content {
    Text(ArcStr),
    /// Not UTF-8, or too large to be read at all: kept as given, and refused when deployed.
    Bytes(Vec<u8>),
}

impl Resource {
    pub fn new(name: impl Into<String>, content: impl Into<Vec<u8>>) -> Self {
        let content = content.into();
        let content = if content.len() > MAX_RESOURCE_BYTES {
            // Never decoded: a file this large is refused without looking at it.
            Content::Bytes(content)
        } else {
            match String::from_utf8(content) {
                Ok(text) => Content::Text(ArcStr::from(text)),
                Err(error) => Content::Bytes(error.into_bytes()),
            }
        };
        Resource {
            name: name.into(),
            content,
        }
    }

    /// A resource whose content is already text (shared, not copied).
    pub fn from_text(name: impl Into<String>, text: impl Into<ArcStr>) -> Self {
        Resource {
            name: name.into(),
            content: Content::Text(text.into()),
        }
    }

    /// The content as given.
    pub fn content(&self) -> &[u8] {
        match &self.content {
            Content::Text(text) => text.as_bytes(),
            Content::Bytes(bytes) => bytes,
        }
    }
}

/// A resource as data (a command log): its name and its text, or its bytes when they are not
/// UTF-8.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResourceData {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes: Option<Vec<u8>>,
}

impl serde::Serialize for Resource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (text, bytes) = match &self.content {
            Content::Text(text) => (Some(text.to_string()), None),
            Content::Bytes(bytes) => (None, Some(bytes.clone())),
        };
        ResourceData {
            name: self.name.clone(),
            text,
            bytes,
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Resource {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let data = ResourceData::deserialize(deserializer)?;
        match (data.text, data.bytes) {
            (Some(text), None) => Ok(Resource::new(data.name, text)),
            (None, Some(bytes)) => Ok(Resource::new(data.name, bytes)),
            _ => Err(serde::de::Error::custom(
                "a resource has either `text` or `bytes`",
            )),
        }
    }
}

/// A resource that passed every check: its text (for positions in later messages) and its model.
#[derive(Debug)]
pub struct DeployedResource {
    pub source: Source,
    pub model: DeployedModel,
}

/// What a resource holds.
#[derive(Debug)]
pub enum DeployedModel {
    /// A `.bpmn` (or any other non-DMN) resource. Its BPMN DI was checked, not kept
    /// (`Definitions::unread_diagram`): [`model::UnreadDiagram::read`] reads it.
    Bpmn(Box<Definitions>),
    /// A `.dmn` resource: one decision requirements graph.
    Dmn(Arc<Drg>),
}

impl DeployedResource {
    /// The BPMN definitions, for a BPMN resource.
    pub fn definitions(&self) -> Option<&Definitions> {
        match &self.model {
            DeployedModel::Bpmn(definitions) => Some(&**definitions),
            DeployedModel::Dmn(_) => None,
        }
    }

    /// The decision requirements graph, for a DMN resource.
    pub fn drg(&self) -> Option<&Arc<Drg>> {
        match &self.model {
            DeployedModel::Bpmn(_) => None,
            DeployedModel::Dmn(drg) => Some(drg),
        }
    }

    /// The processes Zeebe deploys from this resource: the executable ones.
    pub fn executable_processes(&self) -> impl Iterator<Item = &model::Process> {
        self.definitions()
            .into_iter()
            .flat_map(|definitions| definitions.processes.iter())
            .filter(|process| process.is_executable)
    }

    /// The decisions Zeebe deploys from this resource.
    pub fn decisions(&self) -> impl Iterator<Item = &dmn::model::Decision> {
        self.drg().into_iter().flat_map(|drg| drg.decisions.iter())
    }
}

/// Whether Zeebe reads a resource of this name as DMN (`.dmn`); everything else is read as BPMN.
pub fn is_dmn(name: &str) -> bool {
    name.ends_with(".dmn")
}

/// Parses and checks every resource. `Err` holds every diagnostic of every resource, in the
/// order of the resources, each resource's by position.
pub fn check(resources: &[Resource]) -> Result<Vec<DeployedResource>, Diagnostics> {
    let mut deployed = Vec::with_capacity(resources.len());
    let mut diagnostics = Vec::new();
    for resource in resources {
        let (checked, mut found) = check_resource(resource);
        diagnostics.append(&mut found);
        if let Some(checked) = checked {
            deployed.push(checked);
        }
    }
    check_process_ids(&deployed, &mut diagnostics);
    check_decision_ids(&deployed, &mut diagnostics);
    check_deployment_bindings(&deployed, &mut diagnostics);
    if diagnostics.is_empty() {
        Ok(deployed)
    } else {
        Err(Diagnostics(diagnostics))
    }
}

/// Parses and checks one resource on its own: the model (absent when the file is not BPMN or
/// DMN) and the resource's diagnostics, by position.
pub fn check_resource(resource: &Resource) -> (Option<DeployedResource>, Vec<Diagnostic>) {
    let content = resource.content();
    if content.len() > MAX_RESOURCE_BYTES {
        // Not even decoded: the text is never looked at.
        return (None, vec![too_large(&resource.name, content.len() as u64)]);
    }
    let text = match &resource.content {
        Content::Text(text) => text.clone(),
        // Only content that is not UTF-8 is kept as bytes (larger content was refused above).
        Content::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => ArcStr::from(text),
            Err(error) => {
                let offset = error.valid_up_to();
                // The position only needs the text before the bad byte, which is valid UTF-8.
                let valid = String::from_utf8_lossy(&bytes[..offset]).into_owned();
                let source = Source::new(resource.name.clone(), valid);
                let diagnostic = Diagnostic::at(
                    &source,
                    offset as u32,
                    Rule::XmlMalformed,
                    None,
                    format!(
                        "the file is not UTF-8 text (byte 0x{:02x} at offset {offset} is invalid)",
                        bytes[offset]
                    ),
                );
                return (None, vec![diagnostic]);
            }
        },
    };
    let source = Source::new(resource.name.clone(), text);
    if is_dmn(&resource.name) {
        let parsed = dmn::parse(&source);
        return match parsed.drg {
            Some(drg) if parsed.diagnostics.is_empty() => (
                Some(DeployedResource {
                    source,
                    model: DeployedModel::Dmn(Arc::new(drg)),
                }),
                parsed.diagnostics,
            ),
            _ => (None, parsed.diagnostics),
        };
    }
    // The BPMN DI is checked, not kept: only the coverage picture reads it, from the text.
    let parsed = model::parse(&source, model::DiagramReading::Defer);
    let mut diagnostics = parsed.diagnostics;
    let Some(definitions) = parsed.definitions else {
        return (None, diagnostics);
    };
    diagnostics.extend(checks::check(&source, &definitions));
    diagnostics.sort_by_key(|d| (d.line, d.col));
    if !diagnostics.is_empty() {
        return (None, diagnostics);
    }
    (
        Some(DeployedResource {
            source,
            model: DeployedModel::Bpmn(Box::new(definitions)),
        }),
        diagnostics,
    )
}

/// The diagnostic for a resource of `bytes` bytes, more than [`MAX_RESOURCE_BYTES`]: callers that
/// read files use it without reading the whole file.
pub fn too_large(name: &str, bytes: u64) -> Diagnostic {
    let source = Source::new(name, String::new());
    Diagnostic::at(
        &source,
        0,
        Rule::ResourceTooLarge,
        None,
        format!(
            "the resource has {bytes} bytes, more than the {MAX_RESOURCE_BYTES} bytes Zeebe \
             accepts by default"
        ),
    )
}

/// Zeebe's `ZeebeCalledElementDeploymentBindingValidator` and
/// `ZeebeCalledDecisionDeploymentBindingValidator`: a call activity or business rule task bound
/// with `bindingType="deployment"` calls a process or decision of the same deployment.
fn check_deployment_bindings(deployed: &[DeployedResource], diagnostics: &mut Vec<Diagnostic>) {
    let ids: Vec<&str> = deployed
        .iter()
        .flat_map(|resource| resource.executable_processes())
        .map(|process| process.id.as_str())
        .collect();
    let decision_ids: Vec<&str> = deployed
        .iter()
        .flat_map(|resource| resource.decisions())
        .map(|decision| &*decision.id)
        .collect();
    for resource in deployed {
        for process in resource.executable_processes() {
            for element in &process.elements {
                let zeebe = &element.zeebe;
                let calls = [
                    zeebe.called_decision.as_ref().map(|called| {
                        let binding = called.binding_type.as_deref();
                        (
                            "decision",
                            &decision_ids,
                            binding,
                            &called.decision_id,
                            called.span,
                        )
                    }),
                    zeebe.called_element.as_ref().map(|called| {
                        let binding = called.binding_type.as_deref();
                        ("process", &ids, binding, &called.process_id, called.span)
                    }),
                ];
                for (kind, deployed_ids, binding, called_id, span) in calls.into_iter().flatten() {
                    let called_id = called_id.as_ref().map_or("", |e| e.text.as_str());
                    if binding == Some("deployment") && !deployed_ids.contains(&called_id) {
                        diagnostics.push(Diagnostic::at(
                            &resource.source,
                            span.start,
                            Rule::DeploymentBinding,
                            Some(&element.id),
                            format!(
                                "Expected to find {kind} with id '{called_id}' in current deployment, but not found."
                            ),
                        ));
                    }
                }
            }
        }
    }
}

/// Zeebe's `DmnResourceTransformer`: decision requirements ids and decision ids are unique within
/// a deployment.
fn check_decision_ids(deployed: &[DeployedResource], diagnostics: &mut Vec<Diagnostic>) {
    let mut drg_ids: Vec<(&str, &str)> = Vec::new();
    let mut decision_ids: Vec<(&str, &str)> = Vec::new();
    for resource in deployed {
        let Some(drg) = resource.drg() else { continue };
        let name = resource.source.name();
        if let Some((_, first)) = drg_ids.iter().find(|(id, _)| *id == drg.id) {
            diagnostics.push(Diagnostic::at(
                &resource.source,
                drg.span.start,
                Rule::DuplicateDecisionId,
                Some(&drg.id),
                format!(
                    "Expected the decision requirements ids to be unique within a deployment but found a duplicated id '{}' in the resources '{first}' and '{name}'.",
                    drg.id
                ),
            ));
            continue;
        }
        drg_ids.push((&drg.id, name));
        if let Some(decision) = drg
            .decisions
            .iter()
            .find(|d| decision_ids.iter().any(|(id, _)| *id == &*d.id))
        {
            let first = decision_ids
                .iter()
                .find(|(id, _)| *id == &*decision.id)
                .map_or("<?>", |(_, first)| *first);
            diagnostics.push(Diagnostic::at(
                &resource.source,
                decision.span.start,
                Rule::DuplicateDecisionId,
                Some(&decision.id),
                format!(
                    "Expected the decision ids to be unique within a deployment but found a duplicated id '{}' in the resources '{first}' and '{name}'.",
                    decision.id
                ),
            ));
            continue;
        }
        decision_ids.extend(drg.decisions.iter().map(|d| (&*d.id, name)));
    }
}

/// Zeebe rejects a deployment in which two resources define the same process id.
fn check_process_ids(deployed: &[DeployedResource], diagnostics: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for resource in deployed {
        for process in resource.executable_processes() {
            match seen.iter().find(|(id, _)| *id == process.id) {
                Some((_, first)) => diagnostics.push(Diagnostic::at(
                    &resource.source,
                    process.span.start,
                    Rule::DuplicateProcessId,
                    Some(&process.id),
                    format!(
                        "Duplicated process id in resources '{first}' and '{}'",
                        resource.source.name()
                    ),
                )),
                None => seen.push((&process.id, resource.source.name())),
            }
        }
    }
}
