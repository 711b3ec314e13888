//! The `zeebe:` extension elements of an element's `bpmn:extensionElements`, and the
//! `zeebe:modelerTemplate*` attributes: read into [`Zeebe`], each single one at most once.

use super::*;

impl<'s, 'a> Parser<'s, 'a> {
    /// The `zeebe:modelerTemplate*` attributes written on the element itself.
    pub(super) fn zeebe_attributes(&self, node: &Node<'_>, zeebe: &mut Zeebe) {
        // One pass (most elements have no `zeebe:` attribute at all); the first attribute of a
        // name counts, as in `Document::attr`.
        for attr in self
            .xml
            .doc
            .attrs(node)
            .iter()
            .filter(|a| a.ns == Ns::Zeebe)
        {
            let field = match attr.local {
                "modelerTemplate" => &mut zeebe.modeler_template,
                "modelerTemplateVersion" => &mut zeebe.modeler_template_version,
                "modelerTemplateIcon" => &mut zeebe.modeler_template_icon,
                _ => continue,
            };
            if field.is_none() {
                *field = Some(self.xml.doc.value(attr).to_string());
            }
        }
    }

    /// Reads the `zeebe:` children of one `bpmn:extensionElements`.
    pub(super) fn zeebe_extensions(
        &mut self,
        extension_elements: &'s Node<'a>,
        element_id: &str,
        zeebe: &mut Zeebe,
        extras: &mut Extras,
    ) {
        // Which of `SINGLE_EXTENSIONS` were seen, by position.
        let mut seen: u32 = 0;
        for (ext_id, ext) in self.children_of(extension_elements) {
            if ext.ns != Ns::Zeebe {
                continue;
            }
            let local: &str = ext.local;
            if let Some(single) = single_extension(local) {
                if seen & (1 << single) != 0 {
                    self.duplicate_extension(ext, element_id, local);
                    continue;
                }
                seen |= 1 << single;
            }
            let span = self.xml.span(ext);
            match local {
                "taskDefinition" => zeebe.task_definition = Some(self.task_definition(ext)),
                "ioMapping" => self.io_mapping(ext_id, zeebe),
                "taskHeaders" => self.task_headers(ext_id, &mut zeebe.task_headers),
                "properties" => self.properties(ext_id, &mut zeebe.properties),
                "subscription" => {
                    zeebe.subscription = Some(Box::new(Subscription {
                        correlation_key: self.expr(ext, "correlationKey"),
                        span,
                    }))
                }
                "calledElement" => {
                    zeebe.called_element = Some(Box::new(self.called_element(ext, element_id)))
                }
                "calledDecision" => {
                    zeebe.called_decision = Some(Box::new(self.called_decision(ext)))
                }
                "script" => zeebe.script = Some(Box::new(self.zeebe_script(ext))),
                "userTask" => zeebe.user_task = true,
                "assignmentDefinition" => {
                    zeebe.assignment = Some(Box::new(self.assignment_definition(ext)))
                }
                "taskSchedule" => zeebe.task_schedule = Some(Box::new(self.task_schedule(ext))),
                "priorityDefinition" => {
                    zeebe.priority = Some(self.expr(ext, "priority").unwrap_or(Expr::new("", span)))
                }
                "formDefinition" => zeebe.form = Some(Box::new(self.form_definition(ext))),
                "executionListeners" => {
                    self.listeners(ext_id, "executionListener", &mut zeebe.execution_listeners)
                }
                "taskListeners" => {
                    self.listeners(ext_id, "taskListener", &mut zeebe.task_listeners)
                }
                "adHoc" => zeebe.ad_hoc = Some(Box::new(self.zeebe_ad_hoc(ext))),
                "linkedResources" => self.linked_resources(ext_id, &mut zeebe.linked_resources),
                "publishMessage" => {
                    zeebe.publish_message = Some(Box::new(self.publish_message(ext)))
                }
                "jobPriorityDefinition" => zeebe.job_priority = self.expr(ext, "priority"),
                "versionTag" => extras.version_tag = self.xml.string(ext, "value"),
                "userTaskForm" => extras.user_task_forms.push(self.user_task_form(ext)),
                // Unknown `zeebe:` elements (newer versions, e.g. `zeebe:agentDefinition`) are
                // allowed by Zeebe's schema and ignored here.
                _ => {}
            }
        }
    }

    /// `zeebe:taskDefinition`: the job's type and retries.
    fn task_definition(&self, ext: &Node<'_>) -> TaskDefinition {
        TaskDefinition {
            job_type: self.expr(ext, "type"),
            retries: self.expr(ext, "retries"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:ioMapping`: its `zeebe:input`s and `zeebe:output`s, in order.
    fn io_mapping(&self, ext_id: NodeId, zeebe: &mut Zeebe) {
        for (_, mapping) in self.xml.children(ext_id) {
            let parsed = Mapping {
                source: self.expr(mapping, "source"),
                target: self.xml.string(mapping, "target").unwrap_or_default(),
                span: self.xml.span(mapping),
            };
            if mapping.is(Ns::Zeebe, "input") {
                zeebe.input_mappings.push(parsed);
            } else if mapping.is(Ns::Zeebe, "output") {
                zeebe.output_mappings.push(parsed);
            }
        }
    }

    /// `zeebe:taskHeaders`: each `zeebe:header`'s key and value.
    fn task_headers(&self, ext_id: NodeId, headers: &mut Vec<(String, String)>) {
        for (_, header) in self.xml.children(ext_id) {
            if header.is(Ns::Zeebe, "header") {
                headers.push((
                    self.xml.string(header, "key").unwrap_or_default(),
                    self.xml.string(header, "value").unwrap_or_default(),
                ));
            }
        }
    }

    /// `zeebe:properties`: each `zeebe:property`.
    fn properties(&self, ext_id: NodeId, properties: &mut Vec<Property>) {
        for (_, property) in self.xml.children(ext_id) {
            if property.is(Ns::Zeebe, "property") {
                properties.push(Property {
                    name: self.xml.string(property, "name").unwrap_or_default(),
                    value: self.xml.string(property, "value"),
                    span: self.xml.span(property),
                });
            }
        }
    }

    /// `zeebe:calledElement`: the process a call activity calls and how variables propagate.
    fn called_element(&mut self, ext: &Node<'_>, element_id: &str) -> CalledElement {
        CalledElement {
            process_id: self.expr(ext, "processId"),
            propagate_all_child_variables: self.boolean(
                ext,
                "propagateAllChildVariables",
                Some(element_id),
            ),
            propagate_all_parent_variables: self.boolean(
                ext,
                "propagateAllParentVariables",
                Some(element_id),
            ),
            binding_type: self.xml.string(ext, "bindingType"),
            version_tag: self.xml.string(ext, "versionTag"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:calledDecision`: the decision a business rule task evaluates.
    fn called_decision(&self, ext: &Node<'_>) -> CalledDecision {
        CalledDecision {
            decision_id: self.expr(ext, "decisionId"),
            result_variable: self.xml.string(ext, "resultVariable"),
            binding_type: self.xml.string(ext, "bindingType"),
            version_tag: self.xml.string(ext, "versionTag"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:script`: a script task's FEEL expression and result variable.
    fn zeebe_script(&self, ext: &Node<'_>) -> ZeebeScript {
        ZeebeScript {
            expression: self.expr(ext, "expression"),
            result_variable: self.xml.string(ext, "resultVariable"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:assignmentDefinition`: a user task's assignee and candidates.
    fn assignment_definition(&self, ext: &Node<'_>) -> AssignmentDefinition {
        AssignmentDefinition {
            assignee: self.expr(ext, "assignee"),
            candidate_groups: self.expr(ext, "candidateGroups"),
            candidate_users: self.expr(ext, "candidateUsers"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:taskSchedule`: a user task's due and follow-up dates.
    fn task_schedule(&self, ext: &Node<'_>) -> TaskSchedule {
        TaskSchedule {
            due_date: self.expr(ext, "dueDate"),
            follow_up_date: self.expr(ext, "followUpDate"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:formDefinition`: a user task's form, linked, embedded or external.
    fn form_definition(&self, ext: &Node<'_>) -> FormDefinition {
        FormDefinition {
            form_id: self.expr(ext, "formId"),
            form_key: self.expr(ext, "formKey"),
            external_reference: self.expr(ext, "externalReference"),
            binding_type: self.xml.string(ext, "bindingType"),
            version_tag: self.xml.string(ext, "versionTag"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:executionListeners` or `zeebe:taskListeners`: each listener element named `item`.
    fn listeners(&self, ext_id: NodeId, item: &str, listeners: &mut Vec<Listener>) {
        for (_, listener) in self.xml.children(ext_id) {
            if !listener.is(Ns::Zeebe, item) {
                continue;
            }
            listeners.push(Listener {
                event_type: self.xml.string(listener, "eventType").unwrap_or_default(),
                job_type: self.expr(listener, "type"),
                retries: self.expr(listener, "retries"),
                span: self.xml.span(listener),
            });
        }
    }

    /// `zeebe:adHoc`: an ad-hoc sub-process's collections.
    fn zeebe_ad_hoc(&self, ext: &Node<'_>) -> ZeebeAdHoc {
        ZeebeAdHoc {
            active_elements_collection: self.expr(ext, "activeElementsCollection"),
            output_collection: self.xml.string(ext, "outputCollection"),
            output_element: self.expr(ext, "outputElement"),
            span: self.xml.span(ext),
        }
    }

    /// `zeebe:linkedResources`: each `zeebe:linkedResource`.
    fn linked_resources(&self, ext_id: NodeId, resources: &mut Vec<LinkedResource>) {
        for (_, resource) in self.xml.children(ext_id) {
            if resource.is(Ns::Zeebe, "linkedResource") {
                resources.push(LinkedResource {
                    resource_id: self.xml.string(resource, "resourceId"),
                    resource_type: self.xml.string(resource, "resourceType"),
                    link_name: self.xml.string(resource, "linkName"),
                    binding_type: self.xml.string(resource, "bindingType"),
                    version_tag: self.xml.string(resource, "versionTag"),
                    span: self.xml.span(resource),
                });
            }
        }
    }

    /// `zeebe:userTaskForm`: a form JSON embedded in the process, as the element's text.
    fn user_task_form(&self, ext: &Node<'_>) -> UserTaskForm {
        UserTaskForm {
            id: self.xml.string(ext, "id").unwrap_or_default(),
            body: self
                .xml
                .doc
                .text(ext)
                .map(|t| t.value.to_string())
                .unwrap_or_default(),
            span: self.xml.span(ext),
        }
    }
}

/// Extension elements that only matter on one kind of element and are kept outside `Zeebe`.
#[derive(Default)]
pub(super) struct Extras {
    pub(super) version_tag: Option<String>,
    pub(super) user_task_forms: Vec<UserTaskForm>,
}

/// `zeebe:` elements that may appear at most once in one `bpmn:extensionElements`.
/// (At most 32: `zeebe_extensions` keeps a bit per entry.)
const SINGLE_EXTENSIONS: &[&str] = &[
    "taskDefinition",
    "ioMapping",
    "taskHeaders",
    "subscription",
    "calledElement",
    "calledDecision",
    "script",
    "userTask",
    "assignmentDefinition",
    "taskSchedule",
    "priorityDefinition",
    "formDefinition",
    "executionListeners",
    "taskListeners",
    "adHoc",
    "linkedResources",
    "publishMessage",
    "jobPriorityDefinition",
    "versionTag",
];
const _: () = assert!(SINGLE_EXTENSIONS.len() <= 32);

/// The position of `local` in `SINGLE_EXTENSIONS`: a `match` (compiled to a length and byte
/// dispatch) rather than a string comparison per entry, for every extension element read.
fn single_extension(local: &str) -> Option<usize> {
    let position = match local {
        "taskDefinition" => 0,
        "ioMapping" => 1,
        "taskHeaders" => 2,
        "subscription" => 3,
        "calledElement" => 4,
        "calledDecision" => 5,
        "script" => 6,
        "userTask" => 7,
        "assignmentDefinition" => 8,
        "taskSchedule" => 9,
        "priorityDefinition" => 10,
        "formDefinition" => 11,
        "executionListeners" => 12,
        "taskListeners" => 13,
        "adHoc" => 14,
        "linkedResources" => 15,
        "publishMessage" => 16,
        "jobPriorityDefinition" => 17,
        "versionTag" => 18,
        _ => return None,
    };
    debug_assert_eq!(SINGLE_EXTENSIONS[position], local);
    Some(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_single_extension_is_found_by_name() {
        for (position, name) in SINGLE_EXTENSIONS.iter().enumerate() {
            assert_eq!(single_extension(name), Some(position), "{name}");
        }
        assert_eq!(single_extension("input"), None);
    }
}
