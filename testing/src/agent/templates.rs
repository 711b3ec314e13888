//! The element templates of the AI Agent connectors that baton knows, by id and version
//! (camunda/connectors `connectors/agentic-ai/connector-agentic-ai/element-templates/`, current
//! and `versioned/`). The connector plays every version the same way (the template only writes
//! the BPMN it runs); a version baton does not know is played as the nearest known one, and
//! said so.

/// The templates: id, name, the versions known.
const KNOWN: [(&str, &str, &[u32]); 4] = [
    (
        "io.camunda.connectors.agenticai.aiagent.jobworker.v1",
        "AI Agent Sub-process",
        &[3, 4, 5, 6, 7, 10, 11],
    ),
    (
        "io.camunda.connectors.agenticai.aiagent.v1",
        "AI Agent Task",
        &[0, 1, 2, 3, 4, 5, 6, 7, 10, 11],
    ),
    (
        "io.camunda.connectors.agenticai.ai-agent-subprocess.v2",
        "AI Agent Sub-process (v2)",
        &[1],
    ),
    (
        "io.camunda.connectors.agenticai.ai-agent-task.v2",
        "AI Agent Task (v2)",
        &[1],
    ),
];

/// A note when `element_id` applies an AI Agent template in a version baton does not know
/// (`None` for a known version, another template, or no template).
pub(crate) fn version_note(element_id: &str, template_id: &str, version: &str) -> Option<String> {
    let (_, name, known) = KNOWN.iter().find(|(id, _, _)| *id == template_id)?;
    let newest = *known.last()?;
    let played = match version.trim().parse::<u32>() {
        Ok(v) if known.contains(&v) => return None,
        // The nearest; of two as near, the newer.
        Ok(v) => *known
            .iter()
            .min_by_key(|k| (k.abs_diff(v), u32::MAX - **k))
            .unwrap_or(&newest),
        Err(_) => newest,
    };
    Some(format!(
        "\"{element_id}\" applies the {name} template ({template_id}) version {version}, which baton does not know: played as version {played}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_versions_are_played_as_the_nearest_known_one() {
        let sub = "io.camunda.connectors.agenticai.aiagent.jobworker.v1";
        assert_eq!(version_note("a", sub, "11"), None);
        assert_eq!(
            version_note("a", "io.camunda.connectors.HttpJson.v2", "99"),
            None
        );
        insta::assert_snapshot!(version_note("a", sub, "12").unwrap(), @r#""a" applies the AI Agent Sub-process template (io.camunda.connectors.agenticai.aiagent.jobworker.v1) version 12, which baton does not know: played as version 11"#);
        assert!(
            version_note("a", sub, "8")
                .unwrap()
                .ends_with("played as version 7")
        );
        assert!(
            version_note("a", sub, "9")
                .unwrap()
                .ends_with("played as version 10")
        );
        assert!(
            version_note("a", sub, "next")
                .unwrap()
                .ends_with("played as version 11")
        );
        let task = "io.camunda.connectors.agenticai.aiagent.v1";
        assert!(
            version_note("t", task, "8")
                .unwrap()
                .ends_with("played as version 7")
        );
        assert_eq!(version_note("t", task, "0"), None);
    }
}
