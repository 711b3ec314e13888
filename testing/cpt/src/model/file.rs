//! Reading a test file and its test cases, and the notes for instructions newer than its
//! `$schema`.

use serde_json::{Map, Value};

use super::reader::{kind, missing_attributes};
use super::{FormatError, INSTRUCTION_TYPES, Instruction, Origin, Step, TestCase, TestFile, error};

/// The schema version a `$schema` URL names (`8.9` of `.../cpt-test-cases/8.9/schema.json`).
fn schema_version(url: &str) -> Option<(u32, u32)> {
    let mut parts = url.trim_end_matches('/').rsplit('/');
    let _file = parts.next()?;
    let version = parts.next()?;
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl TestFile {
    /// Whether a JSON document is a test file: an object with a `testCases` array.
    pub fn is_test_file(value: &Value) -> bool {
        value.get("testCases").is_some_and(|cases| cases.is_array())
    }

    /// Reads a test file from JSON text.
    pub fn parse(text: &str) -> Result<TestFile, FormatError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            error(
                "",
                format!(
                    "not valid JSON at line {} column {}: {}",
                    e.line(),
                    e.column(),
                    strip_position(&e.to_string())
                ),
            )
        })?;
        TestFile::from_json(&value)
    }

    /// Reads a test file from parsed JSON.
    pub fn from_json(value: &Value) -> Result<TestFile, FormatError> {
        let Some(root) = value.as_object() else {
            return Err(error(
                "",
                format!(
                    "a test file must be an object with a `testCases` array, got {}",
                    kind(value)
                ),
            ));
        };
        let schema = optional_string(root, "$schema", "")?;
        let process_id = optional_string(root, "processId", "")?;
        let cases = match root.get("testCases") {
            Some(Value::Array(cases)) => cases,
            Some(other) => {
                return Err(error(
                    "testCases",
                    format!("must be an array, got {}", kind(other)),
                ));
            }
            None => return Err(error("", "missing field `testCases`")),
        };
        let mut warnings = Vec::new();
        let mut test_cases = Vec::with_capacity(cases.len());
        for (i, case) in cases.iter().enumerate() {
            test_cases.push(read_case(case, &format!("testCases[{i}]"), &mut warnings)?);
        }
        let mut file = TestFile {
            schema,
            process_id,
            test_cases,
            warnings,
        };
        let newer = file.newer_than_schema();
        file.warnings.extend(newer);
        Ok(file)
    }

    /// Instructions newer than the file's `$schema` (a warning, never an error).
    fn newer_than_schema(&self) -> Vec<String> {
        let Some(version) = self.schema.as_deref().and_then(schema_version) else {
            return Vec::new();
        };
        let mut seen: Vec<&'static str> = Vec::new();
        let mut visit = |step: &Step| {
            let name = step.instruction.type_name();
            let origin = INSTRUCTION_TYPES
                .iter()
                .find(|(t, _)| *t == name)
                .map(|(_, o)| *o);
            let newer = match origin {
                Some(Origin::V810) => version < (8, 10),
                Some(Origin::DevLine) => version < (8, 11),
                _ => false,
            };
            if newer && !seen.contains(&name) {
                seen.push(name);
            }
        };
        for case in &self.test_cases {
            for step in &case.instructions {
                visit(step);
                for nested in step.instruction.nested() {
                    visit(nested);
                }
            }
        }
        seen.iter()
            .map(|name| {
                format!(
                    "{name} is newer than the file's $schema ({}); baton reads it anyway",
                    self.schema.as_deref().unwrap_or_default()
                )
            })
            .collect()
    }
}

fn optional_string(
    object: &Map<String, Value>,
    field: &str,
    path: &str,
) -> Result<Option<String>, FormatError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(error(
            if path.is_empty() {
                field.to_owned()
            } else {
                format!("{path}.{field}")
            },
            format!("must be a string, got {}", kind(other)),
        )),
    }
}

fn read_case(
    value: &Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<TestCase, FormatError> {
    let Some(object) = value.as_object() else {
        return Err(error(
            path,
            format!("a test case must be an object, got {}", kind(value)),
        ));
    };
    let name = match object.get("name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => {
            return Err(error(path, missing_attributes("TestCase", &["name"])));
        }
        Some(other) => {
            return Err(error(
                format!("{path}.name"),
                format!("must be a string, got {}", kind(other)),
            ));
        }
    };
    let description = optional_string(object, "description", path)?;
    let empty = Vec::new();
    let list = match object.get("instructions") {
        Some(Value::Array(list)) => list,
        // A list: CPT's reader defaults it to empty.
        None | Some(Value::Null) => &empty,
        Some(other) => {
            return Err(error(
                format!("{path}.instructions"),
                format!("must be an array, got {}", kind(other)),
            ));
        }
    };
    let mut instructions = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        instructions.push(Step {
            instruction: Instruction::from_json(v, &format!("{path}.instructions[{i}]"), warnings)?,
            json: v.clone(),
        });
    }
    Ok(TestCase {
        name,
        description,
        instructions,
    })
}

/// serde_json's message without its trailing "at line L column C".
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_ignore_unknown_root_and_case_fields_and_warn_about_newer_instructions() {
        let file = TestFile::parse(
            r#"{"$schema": "https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json",
                "_integrationTestNotes": "x",
                "testCases": [{"name": "a", "metadata": {}, "instructions": [
                  {"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}]}]}"#,
        )
        .unwrap();
        assert_eq!(file.test_cases[0].name, "a");
        assert_eq!(
            file.warnings,
            [
                "CONDITIONAL_BEHAVIOR is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway"
            ]
        );
        let e = TestFile::parse(
            r#"{"testCases": [{"name": "a", "instructions": [{"type": "SET_TIME"}]}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "testCases[0].instructions[0]: Cannot build SetTimeInstruction, some of required attributes are not set [time]"
        );
        let e = TestFile::parse("{\"testCases\": [}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("not valid JSON at line 1 column 16"),
            "{e}"
        );
    }

    /// `$schema` 8.10 (the docs' `https://camunda.com/json-schema/cpt-test-cases/8.10/schema.json`)
    /// takes ASSERT_INCIDENT and CONDITIONAL_BEHAVIOR without notes; 8.9 notes them.
    #[test]
    fn the_8_10_schema_takes_the_8_10_instructions_without_notes() {
        let file = |version: &str| {
            TestFile::parse(&format!(
                r#"{{"$schema": "https://camunda.com/json-schema/cpt-test-cases/{version}/schema.json",
                "testCases": [{{"name": "a", "instructions": [
                  {{"type": "ASSERT_INCIDENT", "incidentSelector": {{"elementId": "x"}}}},
                  {{"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}}]}}]}}"#
            ))
            .unwrap()
        };
        assert_eq!(file("8.10").warnings, Vec::<String>::new());
        assert_eq!(
            file("8.9").warnings,
            [
                "ASSERT_INCIDENT is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway",
                "CONDITIONAL_BEHAVIOR is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway"
            ]
        );
        // A test case without `instructions` has none (a list: CPT defaults it); without a name
        // it is refused as CPT refuses it.
        let empty = TestFile::parse(r#"{"testCases": [{"name": "a"}]}"#).unwrap();
        assert!(empty.test_cases[0].instructions.is_empty());
        let e = TestFile::parse(r#"{"testCases": [{"instructions": []}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "testCases[0]: Cannot build TestCase, some of required attributes are not set [name]"
        );
    }
}
