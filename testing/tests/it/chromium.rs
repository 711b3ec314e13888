//! Headless Chromium for the HTML coverage report's tests: whether the machine has it, running
//! it on a page, and a probe of what the browser made of the page.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's chromium, where the test machine has it (`.ci/run` installs it).
pub fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from("/usr/bin/chromium");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: /usr/bin/chromium is missing (apt-get install chromium); the HTML report was not checked in a browser"
        );
        None
    }
}

/// Runs headless Chromium on a page with `extra` arguments; returns its standard output.
pub fn run_chromium(chromium: &Path, profile: &Path, extra: &[String], page: &Path) -> String {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Read the pipes on threads so a chatty browser cannot block on a full pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "chromium failed ({status}):\n{err}");
    out
}

/// Appended to a copy of the page: what the browser made of it, written into the DOM for
/// `--dump-dom` (the report itself has no script).
const PROBE: &str = r#"<script>
(() => {
  const out = {};
  out.resources = performance.getEntriesByType("resource").length;
  out.diagrams = [...document.querySelectorAll("svg.bpmn-diagram")].map(svg => {
    const box = svg.getBoundingClientRect();
    return { width: Math.round(box.width), height: Math.round(box.height) };
  });
  out.shapes = [...document.querySelectorAll("svg.bpmn-diagram g.shape")].map(g => {
    const box = g.getBBox();
    const state = ["covered", "missed", "neutral"].find(c => g.classList.contains(c));
    return [g.dataset.id, state, g.classList.contains("tool"), box.width > 0 && box.height > 0];
  });
  out.flows = [...document.querySelectorAll("svg.bpmn-diagram g.flow")].map(g => {
    const box = g.getBBox();
    return [g.dataset.id, g.classList[1], box.width > 0 || box.height > 0];
  });
  out.titles = document.querySelectorAll("svg.bpmn-diagram title").length;
  out.rules = [...document.querySelectorAll("table.dmn tr.rule")].map(tr => {
    const box = tr.getBoundingClientRect();
    const state = ["covered", "missed"].find(c => tr.classList.contains(c));
    const cell = getComputedStyle(tr.querySelector("td.entry")).backgroundColor;
    return [tr.closest("section").dataset.decisionId, tr.dataset.ruleId, state, box.width > 0 && box.height > 0, cell];
  });
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#;

/// Loads the page with the probe and returns the probe's findings.
pub fn probe(chromium: &Path, dir: &Path, page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = dir.join("probe.html");
    std::fs::write(
        &probed,
        html.replace("</body>", &format!("{PROBE}\n</body>")),
    )
    .unwrap();
    let dom = run_chromium(
        chromium,
        &dir.join("profile"),
        &["--dump-dom".to_owned()],
        &probed,
    );
    let start = dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("the probe did not run:\n{dom}"));
    let text = &dom[start + "<pre id=\"probe\">".len()..];
    let text = &text[..text.find("</pre>").unwrap()];
    let text = text
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap()
}
