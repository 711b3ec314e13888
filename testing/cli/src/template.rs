//! `baton template list` and `baton template use NAME [DIR]`: the starter processes of
//! `templates/` (every one of them), embedded in the binary so they work outside the
//! repository (read through the crate's own `templates/`, a link to them, so that the published
//! crate carries them). `use` writes a template's files (its BPMN, test and exploration files, and its
//! README as `<name>.README.md`), refusing to overwrite files without `--force`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A starter process: its files, embedded.
struct Template {
    name: &'static str,
    description: &'static str,
    files: &'static [(&'static str, &'static str)],
}

const TEMPLATES: &[Template] = &[
    Template {
        name: "ai-agent-tool-loop",
        description: "a support agent (AI Agent Sub-process) with three tools, a gateway on its answer and a person as fallback; its test file scripts the model with MOCK_AI_AGENT, its exploration file (baton explore) tries every choice of the model",
        files: &[
            (
                "ai-agent-tool-loop.bpmn",
                include_str!("../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"),
            ),
            (
                "ai-agent-tool-loop.test.json",
                include_str!("../templates/ai-agent-tool-loop/ai-agent-tool-loop.test.json"),
            ),
            (
                "ai-agent-tool-loop.explore.json",
                include_str!("../templates/ai-agent-tool-loop/ai-agent-tool-loop.explore.json"),
            ),
            (
                "ai-agent-tool-loop.README.md",
                include_str!("../templates/ai-agent-tool-loop/README.md"),
            ),
        ],
    },
    Template {
        name: "ai-agent-faults",
        description: "the support agent under faults: a write tool behind an approval, an SLA timer, a model-call budget; its test cases are named by the risk they guard (crash-after-ticket-create, restart-after-crash, model-timeout-before-sla, slow-model-past-sla, budget-exhausted, tool-error-recovered)",
        files: &[
            (
                "ai-agent-faults.bpmn",
                include_str!("../templates/ai-agent-faults/ai-agent-faults.bpmn"),
            ),
            (
                "ai-agent-faults.test.json",
                include_str!("../templates/ai-agent-faults/ai-agent-faults.test.json"),
            ),
            (
                "ai-agent-faults.README.md",
                include_str!("../templates/ai-agent-faults/README.md"),
            ),
        ],
    },
    Template {
        name: "ai-agent-task-tool-loop",
        description: "the support agent as an AI Agent Task (a service task) with its tools in a separate ad-hoc sub-process the process loops through; test and exploration files as for ai-agent-tool-loop",
        files: &[
            (
                "ai-agent-task-tool-loop.bpmn",
                include_str!("../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn"),
            ),
            (
                "ai-agent-task-tool-loop.test.json",
                include_str!(
                    "../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.test.json"
                ),
            ),
            (
                "ai-agent-task-tool-loop.explore.json",
                include_str!(
                    "../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.explore.json"
                ),
            ),
            (
                "ai-agent-task-tool-loop.README.md",
                include_str!("../templates/ai-agent-task-tool-loop/README.md"),
            ),
        ],
    },
    Template {
        name: "ai-agent-tool-loop-v2",
        description: "the support agent on the v2 AI Agent Sub-process connector (Camunda 8.10, the custom provider); its test file scripts the model with MOCK_AI_AGENT",
        files: &[
            (
                "ai-agent-tool-loop-v2.bpmn",
                include_str!("../templates/ai-agent-tool-loop-v2/ai-agent-tool-loop-v2.bpmn"),
            ),
            (
                "ai-agent-tool-loop-v2.test.json",
                include_str!("../templates/ai-agent-tool-loop-v2/ai-agent-tool-loop-v2.test.json"),
            ),
            (
                "ai-agent-tool-loop-v2.README.md",
                include_str!("../templates/ai-agent-tool-loop-v2/README.md"),
            ),
        ],
    },
];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Lists the templates.
    List,
    /// Writes a template's files into DIR (default: the current folder): its .bpmn, .test.json,
    /// .explore.json (when it has one) and its README as <name>.README.md.
    Use {
        /// The template's name (see `baton template list`).
        name: String,
        /// The folder to write into (created if missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Overwrite files that exist.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        Command::List => {
            let width = TEMPLATES.iter().map(|t| t.name.len()).max().unwrap_or(0);
            for t in TEMPLATES {
                outln!("{:<width$}  {}", t.name, t.description);
            }
            ExitCode::SUCCESS
        }
        Command::Use { name, dir, force } => match use_template(name, dir, *force) {
            Ok(written) => {
                for path in &written {
                    outln!("wrote {}", path.display());
                }
                outln!("run its tests: baton test {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("baton template use: {message}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Writes the template's files; nothing is written when one of them exists (without `force`).
fn use_template(name: &str, dir: &Path, force: bool) -> Result<Vec<PathBuf>, String> {
    let Some(template) = TEMPLATES.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = TEMPLATES.iter().map(|t| t.name).collect();
        return Err(format!(
            "no template \"{name}\"; templates: {}",
            names.join(", ")
        ));
    };
    let paths: Vec<PathBuf> = template.files.iter().map(|(f, _)| dir.join(f)).collect();
    if !force {
        let existing: Vec<String> = paths
            .iter()
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if !existing.is_empty() {
            return Err(format!(
                "{} already exist{}; nothing was written (use --force to overwrite)",
                existing.join(", "),
                if existing.len() == 1 { "s" } else { "" }
            ));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (path, (_, content)) in paths.iter().zip(template.files) {
        std::fs::write(path, content)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(paths)
}
