//! The `zeebe:` extension elements (Zeebe's `Zeebe*Validator`s and `ExtensionElementsValidator`):
//! what each needs, and every expression they hold (see `deploy::expressions`).

use super::*;

impl<'a> Checker<'a> {
    /// `type` and `retries` of a task definition or a listener.
    pub(super) fn job_type(
        &mut self,
        id: &str,
        at: u32,
        job_type: Option<&Expr>,
        retries: Option<&Expr>,
    ) {
        self.required_expression(id, at, "type", job_type, Requirement::MANDATORY);
        // Absent retries default to "3"; written but empty is an error.
        if retries.is_some() {
            self.required_expression(id, at, "retries", retries, Requirement::MANDATORY);
        }
    }

    /// An expression attribute Zeebe requires: reported when absent or empty, else checked
    /// as `requirement` says. Whether it is there.
    pub(super) fn required_expression(
        &mut self,
        id: &str,
        at: u32,
        name: &str,
        expr: Option<&Expr>,
        requirement: Requirement,
    ) -> bool {
        if is_empty_expr(expr) {
            self.required_attribute(id, at, name, None);
            return false;
        }
        self.expression(id, at, expr, requirement);
        true
    }

    /// A plain attribute Zeebe requires: reported when absent or empty.
    pub(super) fn required_attribute(
        &mut self,
        id: &str,
        at: u32,
        name: &str,
        value: Option<&str>,
    ) {
        if is_blank_empty(value) {
            self.error(
                at,
                Rule::MissingAttribute,
                id,
                format!("Attribute '{name}' must be present and not empty"),
            );
        }
    }

    /// Every `zeebe:` extension element of one element (or process), each by its own rule.
    pub(super) fn zeebe_extensions(&mut self, id: &str, at: u32, zeebe: &Zeebe) {
        if let Some(task) = &zeebe.task_definition {
            self.job_type(
                id,
                task.span.start,
                task.job_type.as_ref(),
                task.retries.as_ref(),
            );
        }
        self.io_mappings(id, zeebe);
        self.task_headers(id, at, &zeebe.task_headers);
        if let Some(decision) = &zeebe.called_decision {
            self.called_decision(id, decision);
        }
        if let Some(script) = &zeebe.script {
            self.script(id, script);
        }
        for resource in &zeebe.linked_resources {
            self.linked_resource(id, resource);
        }
        if let Some(publish) = &zeebe.publish_message {
            self.publish_message(id, publish);
        }
        if let Some(priority) = &zeebe.priority {
            self.user_task_priority(id, priority);
        }
        if let Some(priority) = &zeebe.job_priority {
            self.job_priority(id, priority);
        }
        if let Some(assignment) = &zeebe.assignment {
            let aat = assignment.span.start;
            self.expression(id, aat, assignment.assignee.as_ref(), Requirement::OPTIONAL);
            let csv = Requirement::OPTIONAL.with_form(StaticForm::ListOfCsv);
            self.expression(id, aat, assignment.candidate_groups.as_ref(), csv);
            self.expression(id, aat, assignment.candidate_users.as_ref(), csv);
        }
        if let Some(schedule) = &zeebe.task_schedule {
            let sat = schedule.span.start;
            let date = Requirement::OPTIONAL.with_form(StaticForm::DateTime);
            self.expression(id, sat, schedule.due_date.as_ref(), date);
            self.expression(id, sat, schedule.follow_up_date.as_ref(), date);
        }
        if let Some(form) = &zeebe.form {
            self.form(id, zeebe, form);
        }
    }

    /// `zeebe:ioMapping`: sources are expressions (an output's a mandatory one), targets
    /// variable paths.
    fn io_mappings(&mut self, id: &str, zeebe: &Zeebe) {
        for mapping in &zeebe.input_mappings {
            self.expression(
                id,
                mapping.span.start,
                mapping.source.as_ref(),
                Requirement::OPTIONAL,
            );
            self.path(id, mapping.span.start, &mapping.target);
        }
        for mapping in &zeebe.output_mappings {
            self.expression(
                id,
                mapping.span.start,
                mapping.source.as_ref(),
                Requirement::EXPRESSION,
            );
            self.path(id, mapping.span.start, &mapping.target);
        }
    }

    /// `zeebe:taskHeaders`: no reserved key, no key twice.
    fn task_headers(&mut self, id: &str, at: u32, headers: &[(String, String)]) {
        let mut keys: Vec<(&str, usize)> = Vec::new();
        for (key, _) in headers {
            if key.starts_with("io.camunda.zeebe:") {
                self.error(
                    at,
                    Rule::TaskHeaders,
                    id,
                    format!("Attribute 'key' contains '{key}', but header keys starting with 'io.camunda.zeebe:' are reserved for internal use."),
                );
            }
            match keys.iter_mut().find(|(k, _)| k == key) {
                Some((_, n)) => *n += 1,
                None => keys.push((key, 1)),
            }
        }
        for (key, n) in keys {
            if n > 1 {
                self.error(
                    at,
                    Rule::TaskHeaders,
                    id,
                    format!("Headers contain duplicate entries for key '{key}'"),
                );
            }
        }
    }

    /// `zeebe:calledDecision`.
    fn called_decision(&mut self, id: &str, decision: &CalledDecision) {
        let dat = decision.span.start;
        let decision_id = decision.decision_id.as_ref();
        self.required_expression(id, dat, "decisionId", decision_id, Requirement::MANDATORY);
        let result_variable = decision.result_variable.as_deref();
        self.required_attribute(id, dat, "resultVariable", result_variable);
        self.binding_type(id, dat, decision.binding_type.as_deref());
    }

    /// `zeebe:script`.
    fn script(&mut self, id: &str, script: &ZeebeScript) {
        let sat = script.span.start;
        let expression = script.expression.as_ref();
        self.required_expression(id, sat, "expression", expression, Requirement::EXPRESSION);
        let result_variable = script.result_variable.as_deref();
        self.required_attribute(id, sat, "resultVariable", result_variable);
    }

    /// `zeebe:linkedResource`.
    fn linked_resource(&mut self, id: &str, resource: &LinkedResource) {
        let rat = resource.span.start;
        for (name, value) in [
            ("resourceId", resource.resource_id.as_deref()),
            ("bindingType", resource.binding_type.as_deref()),
            ("resourceType", resource.resource_type.as_deref()),
        ] {
            self.required_attribute(id, rat, name, value);
        }
        if resource
            .binding_type
            .as_deref()
            .is_some_and(|b| !b.is_empty())
        {
            self.binding_type(id, rat, resource.binding_type.as_deref());
        }
    }

    /// `zeebe:publishMessage`.
    fn publish_message(&mut self, id: &str, publish: &PublishMessage) {
        let pat = publish.span.start;
        let correlation_key = publish.correlation_key.as_ref();
        self.required_expression(
            id,
            pat,
            "correlationKey",
            correlation_key,
            Requirement::OPTIONAL,
        );
        self.expression(id, pat, publish.message_id.as_ref(), Requirement::OPTIONAL);
        self.expression(
            id,
            pat,
            publish.time_to_live.as_ref(),
            Requirement::OPTIONAL,
        );
    }

    /// Zeebe's `ZeebePriorityDefinitionValidator` (a user task's priority).
    fn user_task_priority(&mut self, id: &str, priority: &Expr) {
        let pat = priority.span.start;
        let integer = Requirement::MANDATORY.with_form(StaticForm::Integer);
        if self.required_expression(id, pat, "priority", Some(priority), integer)
            && priority.feel().is_none()
            && let Ok(value) = priority.text.trim().parse::<i32>()
            && !(0..=100).contains(&value)
        {
            self.error(
                pat,
                Rule::Priority,
                id,
                format!(
                    "Priority must be a number between 0 and 100, but was '{}'",
                    priority.text
                ),
            );
        }
    }

    /// Zeebe's `ZeebeJobPriorityDefinitionValidator`.
    fn job_priority(&mut self, id: &str, priority: &Expr) {
        let at = priority.span.start;
        self.required_expression(id, at, "priority", Some(priority), Requirement::MANDATORY);
    }

    /// Zeebe's `ZeebeFormDefinitionValidator`.
    fn form(&mut self, id: &str, zeebe: &Zeebe, form: &FormDefinition) {
        let fat = form.span.start;
        let blank = |e: Option<&Expr>| e.is_none_or(|e| e.text.trim().is_empty());
        let (other, other_blank, suffix) = if zeebe.user_task {
            (
                "externalReference",
                blank(form.external_reference.as_ref()),
                " for native user tasks",
            )
        } else {
            ("formKey", blank(form.form_key.as_ref()), "")
        };
        if other_blank == blank(form.form_id.as_ref()) {
            self.error(
                fat,
                Rule::FormDefinition,
                id,
                format!("Exactly one of the attributes 'formId, {other}' must be present and not blank{suffix}"),
            );
        }
        if !other_blank && form.binding_type.is_some() {
            self.error(
                fat,
                Rule::FormDefinition,
                id,
                format!("Attribute '{other}' must not be used in combination with attribute 'bindingType'"),
            );
        }
        self.binding_type(id, fat, form.binding_type.as_deref());
        for expr in [&form.form_id, &form.form_key, &form.external_reference]
            .into_iter()
            .flatten()
        {
            self.expression(id, fat, Some(expr), Requirement::OPTIONAL);
        }
    }

    pub(super) fn binding_type(&mut self, id: &str, at: u32, binding_type: Option<&str>) {
        if let Some(binding) = binding_type
            && !matches!(binding, "latest" | "deployment" | "versionTag")
        {
            self.error(
                at,
                Rule::BindingType,
                id,
                "Attribute 'bindingType' must be one of: latest, deployment, versionTag",
            );
        }
    }

    fn path(&mut self, id: &str, at: u32, target: &str) {
        for problem in expressions::path_problems(target) {
            self.error(at, Rule::InvalidPath, id, problem);
        }
    }

    /// One expression attribute against Zeebe's requirement for it.
    pub(super) fn expression(
        &mut self,
        id: &str,
        fallback: u32,
        expr: Option<&Expr>,
        requirement: Requirement,
    ) {
        if let Some(problem) = expressions::problem(expr, requirement) {
            let (at, rule) = match expr {
                Some(e) if requirement.non_static => (e.span.start, Rule::ExpressionRequired),
                Some(e) => (e.span.start, Rule::InvalidStaticValue),
                None => (fallback, Rule::ExpressionRequired),
            };
            self.error(at, rule, id, problem);
        }
        if let Some(expr) = expr {
            self.feel(id, expr);
        }
    }

    /// Parses a FEEL expression (`=...`) as Zeebe does at deploy time; a syntax error is
    /// reported at its position in the file. `None` for static values and broken expressions.
    fn feel(&mut self, id: &str, expr: &Expr) -> Option<baton_feel::Expression> {
        match expr.parse_feel()? {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                // The error offset is in the FEEL text; it maps onto the file only when the
                // attribute held no escaped characters.
                let raw = self
                    .source
                    .text()
                    .get(expr.span.start as usize..expr.span.end as usize);
                let at = if raw == Some(expr.text.as_str()) {
                    expr.span.start + 1 + error.offset as u32
                } else {
                    expr.span.start
                };
                self.error(at, Rule::FeelSyntax, id, error.to_string());
                None
            }
        }
    }
}
