//! Finding the job an instruction names (COMPLETE_JOB and its kin), as CPT's remote runtime
//! does: a job search (a job waiting for a worker, with retries left, the oldest), retried
//! until one is there. An endpoint without the job search (baton serve before it had one)
//! gets the job by activation instead: the job type is read from the case's BPMN, the jobs of
//! that type are activated, the one named is kept and the others are handed back at once.

use baton_cpt::model::JobSelector;
use baton_rest::Key;
use baton_rest::jobs::ActivatedJob;
use baton_rest::reads::JobSearchResult;
use quick_xml::events::Event as XmlEvent;
use serde_json::{Map, Value, json};

use super::session::Session;

/// The job found: its key and where it waits.
#[derive(Debug, Clone)]
pub(super) struct FoundJob {
    pub(super) key: Key,
    pub(super) element_id: String,
}

/// The states of a job an action may take (waiting for a worker).
const TAKEABLE: &[&str] = &["CREATED", "FAILED", "RETRIES_UPDATED", "TIMED_OUT"];

fn describe(sel: &JobSelector) -> String {
    let parts: Vec<String> = [
        ("jobType", &sel.job_type),
        ("elementId", &sel.element_id),
        ("processDefinitionId", &sel.process_definition_id),
    ]
    .iter()
    .filter_map(|(n, v)| v.as_ref().map(|v| format!("{n}: \"{v}\"")))
    .collect();
    format!("[{}]", parts.join(", "))
}

/// The oldest job waiting that matches the selector (and kind: `AD_HOC_SUB_PROCESS`,
/// `TASK_LISTENER`), polled until there is one.
pub(super) fn find_job(
    session: &Session<'_>,
    sel: &JobSelector,
    kind: Option<&str>,
    verb: &str,
) -> Result<FoundJob, String> {
    if sel.job_type.is_none() && sel.element_id.is_none() && sel.process_definition_id.is_none() {
        return Err("Missing required property: at least one of jobType, elementId, or processDefinitionId must be set".into());
    }
    let wanted = format!(
        "Expected to {verb} job {} but no job is available.",
        describe(sel)
    );
    let mut filter = Map::new();
    for (field, value) in [
        ("type", &sel.job_type),
        ("elementId", &sel.element_id),
        ("processDefinitionId", &sel.process_definition_id),
    ] {
        if let Some(v) = value {
            filter.insert(field.into(), json!(v));
        }
    }
    if let Some(k) = kind {
        filter.insert("kind".into(), json!(k));
    }
    let filter = Value::Object(filter);
    if session.job_search.get().is_none() {
        let probe = session.search::<JobSearchResult>("jobs", filter.clone());
        session
            .job_search
            .set(Some(!matches!(&probe, Err(e) if e.not_served())));
    }
    if session.job_search.get() == Some(true) {
        return session.wait(|s| {
            let mut jobs: Vec<JobSearchResult> = s.search("jobs", filter.clone())?;
            let ours = s.case_instances()?;
            jobs.retain(|j| super::session::is_ours(&ours, j.process_instance_key));
            jobs.sort_by_key(|j| j.job_key);
            let waiting = jobs
                .iter()
                .find(|j| TAKEABLE.contains(&j.state.as_str()) && j.retries >= 1);
            Ok(match waiting {
                Some(j) => Ok(FoundJob {
                    key: j.job_key,
                    element_id: j.element_id.clone(),
                }),
                None if jobs.is_empty() => Err(format!("{wanted}\nno such job was created")),
                None => Err(format!(
                    "{wanted}\nsuch jobs: {}",
                    jobs.iter()
                        .map(|j| format!("\"{}\" ({})", j.element_id, j.state))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            })
        });
    }
    find_by_activation(session, sel, kind, &wanted)
}

/// The job taken by activation: its type from the selector or the BPMN.
fn find_by_activation(
    session: &Session<'_>,
    sel: &JobSelector,
    kind: Option<&str>,
    wanted: &str,
) -> Result<FoundJob, String> {
    let job_types = match (&sel.job_type, &sel.element_id) {
        (Some(t), _) => vec![t.clone()],
        (None, Some(element)) => {
            let tag = if kind == Some("TASK_LISTENER") {
                "taskListener"
            } else {
                "taskDefinition"
            };
            let types = job_types_in(
                session.bpmn,
                element,
                sel.process_definition_id.as_deref(),
                tag,
            );
            if types.is_empty() {
                return Err(format!(
                    "{wanted}\nthe endpoint does not search jobs (POST /v2/jobs/search), and the job type of \"{element}\" is not a fixed text in the case's BPMN"
                ));
            }
            types
        }
        (None, None) => {
            return Err(format!(
                "{wanted}\nthe endpoint does not search jobs (POST /v2/jobs/search): select the job by jobType or elementId"
            ));
        }
    };
    let matches = |j: &ActivatedJob| {
        sel.element_id.as_deref().is_none_or(|e| j.element_id == e)
            && sel
                .process_definition_id
                .as_deref()
                .is_none_or(|p| j.process_definition_id == p)
            && kind.is_none_or(|k| j.kind == k)
    };
    let job_type = job_types.join("\", \"");
    session.wait(|s| {
        let mut jobs = Vec::new();
        for t in &job_types {
            jobs.extend(s.activate(t)?);
        }
        jobs.sort_by_key(|j| j.job_key);
        let chosen = jobs.iter().position(matches);
        let taken = chosen.map(|i| jobs.remove(i));
        // The others go back at once, with the retries they had.
        for other in &jobs {
            s.client.call_text(
                "POST",
                &format!("/v2/jobs/{}/failure", other.job_key),
                Some(&json!({"retries": other.retries, "retryBackOff": 0})),
            )?;
        }
        Ok(match taken {
            Some(j) => Ok(FoundJob {
                key: j.job_key,
                element_id: j.element_id,
            }),
            None if jobs.is_empty() => Err(format!(
                "{wanted}\nno job of type \"{job_type}\" is waiting"
            )),
            None => Err(format!(
                "{wanted}\nwaiting jobs of type \"{job_type}\": {}",
                jobs.iter()
                    .map(|j| format!("\"{}\"", j.element_id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        })
    })
}

/// The fixed job type (`zeebe:taskDefinition type`) of an element in the BPMN files, in the
/// process `process_id` when given; `None` for an expression or an element without one.
#[cfg(test)]
fn job_type_in(
    files: &[(String, Vec<u8>)],
    element_id: &str,
    process_id: Option<&str>,
) -> Option<String> {
    job_types_in(files, element_id, process_id, "taskDefinition")
        .into_iter()
        .next()
}

/// The fixed job types of the `tag` elements (`taskDefinition`, `taskListener`) of an element.
pub(super) fn job_types_in(
    files: &[(String, Vec<u8>)],
    element_id: &str,
    process_id: Option<&str>,
    tag: &str,
) -> Vec<String> {
    let mut types = Vec::new();
    for (_, xml) in files {
        job_types_in_xml(xml, element_id, process_id, tag, &mut types);
    }
    types
}

fn job_types_in_xml(
    xml: &[u8],
    element_id: &str,
    process_id: Option<&str>,
    tag: &str,
    types: &mut Vec<String>,
) -> Option<()> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buf = Vec::new();
    // (local name, id) of the open elements.
    let mut stack: Vec<(String, Option<String>)> = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buf).ok()?;
        let (start, empty) = match &event {
            XmlEvent::Start(s) => (Some(s.clone()), false),
            XmlEvent::Empty(s) => (Some(s.clone()), true),
            XmlEvent::End(_) => {
                stack.pop();
                (None, false)
            }
            XmlEvent::Eof => return Some(()),
            _ => (None, false),
        };
        let Some(start) = start else {
            buf.clear();
            continue;
        };
        let local = start.local_name().as_ref().to_owned();
        let attr = |name: &str| {
            start
                .attributes()
                .flatten()
                .find(|a| a.key.local_name().as_ref() == name)
                .map(|a| a.value.to_string())
        };
        if local == tag {
            let owner = stack.iter().rev().find_map(|(_, id)| id.as_deref());
            let process = stack
                .iter()
                .find(|(n, _)| n == "process")
                .and_then(|(_, id)| id.as_deref());
            if owner == Some(element_id)
                && process_id.is_none_or(|p| process == Some(p))
                && let Some(t) = attr("type")
                && !t.starts_with('=')
                && !types.contains(&t)
            {
                types.push(t);
            }
        }
        if !empty {
            let id = attr("id");
            stack.push((local, id));
        }
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_type_of_an_element_is_read_from_the_bpmn() {
        let xml = br#"<definitions xmlns:zeebe="z"><process id="p">
          <serviceTask id="a"><extensionElements><zeebe:taskDefinition type="ta"/></extensionElements></serviceTask>
          <adHocSubProcess id="agent"><extensionElements><zeebe:taskDefinition type="io.camunda.agenticai:aiagent-job-worker:1" retries="3"/></extensionElements>
            <serviceTask id="tool"><extensionElements><zeebe:taskDefinition type="=tool_type"/></extensionElements></serviceTask>
          </adHocSubProcess></process></definitions>"#;
        let files = vec![("x.bpmn".to_owned(), xml.to_vec())];
        assert_eq!(job_type_in(&files, "a", None).as_deref(), Some("ta"));
        assert_eq!(
            job_type_in(&files, "agent", Some("p")).as_deref(),
            Some("io.camunda.agenticai:aiagent-job-worker:1")
        );
        assert_eq!(job_type_in(&files, "tool", None), None);
        assert_eq!(job_type_in(&files, "a", Some("other")), None);
        assert_eq!(job_type_in(&files, "missing", None), None);
    }
}
