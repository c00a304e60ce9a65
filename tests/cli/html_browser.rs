//! The HTML report in a real browser: headless Chromium opens it with no console output at all
//! (CSP violations and script errors are console errors), the payloads injected in provider data
//! never run, the page works with JavaScript off, and screenshots are saved for review. Ignored by a
//! plain `cargo test`, since it needs Chromium: `scripts/install-test-deps.sh` installs it, then
//! `cargo test -- --ignored` runs these tests, and they fail when Chromium is still missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolnorm::report::html;
use toolnorm::report::sample::sample_report;

/// `TOOLNORM_CHROMIUM`, else the first Chromium on `PATH`; panics when there is none, so that a
/// run that asked for these tests cannot pass without a browser.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("TOOLNORM_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!("no chromium on PATH (run scripts/install-test-deps.sh, or set TOOLNORM_CHROMIUM)");
}

/// Where this test's files go: under `target/`, kept after the run so the screenshots can be looked at.
fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-browser");
    std::fs::create_dir_all(&dir).expect("failed to create the output dir");
    dir
}

struct Run {
    stdout: String,
    stderr: String,
}

impl Run {
    /// Console messages Chromium logged for the page (`...:INFO:CONSOLE:12] "message", source: ...`;
    /// older builds write `CONSOLE(12)`). Errors and warnings alike: a clean report logs nothing.
    fn console(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .collect()
    }
}

/// Run headless Chromium on `page` with `extra` flags, in a fresh profile, isolated from the
/// network, killed after a minute.
fn run_chromium(bin: &Path, page: &Path, extra: &[&str]) -> Run {
    run_chromium_url(bin, &format!("file://{}", page.display()), extra)
}

/// [`run_chromium`] on a URL (a page with a fragment).
fn run_chromium_url(bin: &Path, url: &str, extra: &[&str]) -> Run {
    let profile = tempfile::tempdir().expect("failed to create a profile dir");
    let out = tempfile::NamedTempFile::new().expect("temp file");
    let err = tempfile::NamedTempFile::new().expect("temp file");
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(out.reopen().expect("reopen"))
        .stderr(err.reopen().expect("reopen"))
        .spawn()
        .expect("failed to start chromium");
    let start = Instant::now();
    loop {
        match child.try_wait().expect("failed to wait for chromium") {
            Some(_) => break,
            None if start.elapsed() > Duration::from_secs(60) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("chromium did not finish within 60 s on {url}");
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    Run {
        stdout: std::fs::read_to_string(out.path()).unwrap_or_default(),
        stderr: std::fs::read_to_string(err.path()).unwrap_or_default(),
    }
}

fn write_report(dir: &Path) -> PathBuf {
    let page = dir.join("index.html");
    let mut file = std::fs::File::create(&page).expect("failed to create index.html");
    html::render(&sample_report(), &mut file).expect("failed to render the report");
    page
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn report_opens_with_no_console_errors_and_payloads_inert() {
    let bin = chromium();
    let dir = out_dir();
    let page = write_report(&dir);
    let run = run_chromium(&bin, &page, &["--dump-dom"]);
    let console = run.console();
    assert!(
        console.is_empty(),
        "console output from the report:\n{}",
        console.join("\n")
    );
    let dom = &run.stdout;
    assert!(
        dom.contains("</html>"),
        "no DOM dumped; chromium said:\n{}",
        run.stderr
    );
    // Our script ran under the policy (its hash matched): it marks the root and shows the filters.
    assert!(
        dom.contains("<html lang=\"en\" class=\"js\">"),
        "the report's script did not run"
    );
    assert!(
        dom.contains("id=\"filters\" class=\"filters\">"),
        "filters still hidden"
    );
    assert!(
        dom.contains("showing 11 of 11 fixtures"),
        "filter count not rendered"
    );
    // The payloads would have renamed the page and left elements behind.
    assert!(
        dom.contains("<title>toolnorm verify: failed</title>"),
        "title changed: a payload ran"
    );
    assert_eq!(
        dom.matches("<script").count(),
        1,
        "a script element from provider data"
    );
    assert!(!dom.contains("<img"), "an img element from provider data");
    assert!(
        dom.contains("document.title='PWNED'"),
        "the payload should be shown as text"
    );
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn report_reads_with_javascript_disabled() {
    let bin = chromium();
    let dir = out_dir().join("nojs");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let page = write_report(&dir);
    // Headless Chromium has no switch that turns scripting off, so the page loses its one
    // script element instead: what a browser with JavaScript disabled would run.
    let html = std::fs::read_to_string(&page).expect("read index.html");
    let start = html.find("<script>").expect("the report has a script");
    let end = html[start..].find("</script>").expect("closed") + start + "</script>".len();
    std::fs::write(&page, format!("{}{}", &html[..start], &html[end..])).expect("write");
    let run = run_chromium(&bin, &page, &["--dump-dom"]);
    assert!(
        run.console().is_empty(),
        "console output:\n{}",
        run.console().join("\n")
    );
    let dom = &run.stdout;
    assert!(
        dom.contains("<html lang=\"en\">"),
        "script ran although disabled"
    );
    assert!(
        dom.contains("id=\"filters\" class=\"filters\" hidden"),
        "filters must stay hidden without JS"
    );
    // Everything is there: every fixture, the matrix and both diff views.
    assert_eq!(dom.matches("<details class=\"fx ").count(), 11);
    assert!(dom.contains("class=\"diff d-split\"") && dom.contains("class=\"diff d-inline\""));
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn screenshots_light_and_dark() {
    let bin = chromium();
    let dir = out_dir();
    let page = write_report(&dir);
    for (name, extra) in [
        ("report-light.png", None),
        ("report-dark.png", Some("--force-dark-mode")),
    ] {
        let shot = dir.join(name);
        let _ = std::fs::remove_file(&shot);
        let mut args = vec![
            format!("--screenshot={}", shot.display()),
            "--window-size=1440,2600".to_string(),
            "--hide-scrollbars".to_string(),
        ];
        args.extend(extra.map(str::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run_chromium(&bin, &page, &args);
        assert!(
            run.console().is_empty(),
            "console output:\n{}",
            run.console().join("\n")
        );
        let png = std::fs::read(&shot)
            .unwrap_or_else(|e| panic!("no screenshot {}: {e}\n{}", shot.display(), run.stderr));
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
            "not a real screenshot"
        );
        println!("screenshot: {}", shot.display());
    }
}

/// The detector itself: a page whose inline script is not in the policy must produce a console
/// error, or "no console errors" above would prove nothing.
#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn console_capture_sees_a_blocked_script() {
    let bin = chromium();
    let dir = out_dir();
    let page = dir.join("canary.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-AAAA'\">\
         <title>canary</title></head><body><script>document.title='ran'</script></body></html>",
    )
    .expect("write canary");
    let run = run_chromium(&bin, &page, &["--dump-dom"]);
    assert!(
        run.stdout.contains("<title>canary</title>"),
        "the blocked script ran"
    );
    assert!(
        run.console()
            .iter()
            .any(|l| l.contains("Content Security Policy")),
        "chromium logged no CSP violation; the console capture does not work:\n{}",
        run.stderr
    );
}

/// A report past the compact threshold: the passing fixtures are drawn from the data block only
/// while on screen, a deep link to one far down the list draws it (with its hashed anchor too),
/// the failures' diffs stay templates until opened, and nothing from provider data runs.
#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn large_report_draws_passing_fixtures_on_demand() {
    let bin = chromium();
    let dir = out_dir().join("large");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut report = sample_report();
    let pass = report
        .fixtures
        .to_vec()
        .expect("held in memory")
        .into_iter()
        .find(|f| f.status == toolnorm::report::Status::Pass)
        .expect("a passing fixture");
    for i in 0..5_000 {
        let mut f = pass.clone();
        f.name = match i {
            7 => "odd <script>document.title='PWNED'</script>".to_owned(),
            4_321 => "needs a hash".to_owned(),
            _ => format!("bulk-{i:05}"),
        };
        report
            .fixtures
            .edit(|all| all.push(f))
            .expect("held in memory");
    }
    let total = report.fixtures.len();
    let page = dir.join("index.html");
    let mut file = std::fs::File::create(&page).expect("create index.html");
    html::render(&report, &mut file).expect("render");
    drop(file);
    for (target, expect) in [
        (
            "fixture-claude-bulk-04000",
            "id=\"fixture-claude-bulk-04000\"",
        ),
        (
            html::fixture_anchor("claude", "needs a hash").as_str(),
            "<b>needs a hash</b>",
        ),
    ] {
        let url = format!("file://{}#{target}", page.display());
        let run = run_chromium_url(&bin, &url, &["--dump-dom", "--window-size=1280,900"]);
        assert!(
            run.console().is_empty(),
            "console output:\n{}",
            run.console().join("\n")
        );
        let dom = &run.stdout;
        assert!(dom.contains("</html>"), "no DOM dumped:\n{}", run.stderr);
        assert!(
            dom.contains(&format!("showing {total} of {total} fixtures")),
            "count not rendered"
        );
        assert!(dom.contains(expect), "{target} was not drawn");
        assert!(
            dom.contains(&format!(
                "class=\"prow target\" role=\"listitem\" id=\"{target}\""
            )),
            "{target} not marked as the target"
        );
        let rows = dom.matches("class=\"prow").count();
        assert!(
            (10..200).contains(&rows),
            "{rows} passing rows drawn: the list is not virtual"
        );
        assert!(
            dom.contains("<template class=\"lazy\">"),
            "a diff was drawn unopened"
        );
        assert!(
            dom.contains("<title>toolnorm verify: failed</title>"),
            "a payload ran"
        );
        assert_eq!(
            dom.matches("<script>").count(),
            1,
            "a script from provider data"
        );
    }
}

/// Cards drawn in a dumped DOM: those outside the inert blocks (whose text the dump holds too).
fn drawn_cards(dom: &str) -> usize {
    let mut n = 0;
    for (i, piece) in dom
        .split("<script type=\"text/x-toolnorm-cards\"")
        .enumerate()
    {
        let outside = if i == 0 {
            piece
        } else {
            piece.split_once("</script>").map_or("", |(_, rest)| rest)
        };
        n += outside.matches("<article class=\"tc ").count();
    }
    n
}

/// A `toolnorm view` page of `fixture` (the binary, as a user runs it) at `page`.
fn view_page(fixture: &Path, page: &Path) {
    let o = crate::cli::util::toolnorm()
        .arg("view")
        .arg(fixture)
        .arg("--out")
        .arg(page)
        .output()
        .expect("run toolnorm view");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A raw session whose calls carry hostile strings in every field, with more calls than the
/// page draws at first, so some wait in inert blocks.
fn hostile_session(dir: &Path) -> PathBuf {
    let payload = "<script>document.title='PWNED'</script>\"><img src=x onerror=\"document.title='PWNED'\"></details><!--";
    let mut lines = vec![serde_json::json!({"type":"system","subtype":"init","session_id":"s","cwd":"/w","tools":[],"model":"m"}).to_string()];
    for i in 0..600 {
        let id = format!("toolu_{i:03}{payload}");
        lines.push(serde_json::json!({"type":"assistant","session_id":"s","message":{"id":format!("m{i}"),"role":"assistant","content":[{"type":"tool_use","id":id,"name":"Bash","input":{"command":format!("echo {payload}"),"description":payload}}]}}).to_string());
        lines.push(serde_json::json!({"type":"user","session_id":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":payload,"is_error":i % 7 == 0}]}}).to_string());
    }
    let path = dir.join("hostile.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write the session");
    path
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn view_page_opens_clean_draws_on_demand_and_payloads_stay_inert() {
    let bin = chromium();
    let dir = out_dir().join("view");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let session = hostile_session(&dir);
    let page = dir.join("view.html");
    view_page(&session, &page);
    let run = run_chromium(&bin, &page, &["--dump-dom", "--window-size=1280,900"]);
    let console = run.console();
    assert!(
        console.is_empty(),
        "console output:\n{}",
        console.join("\n")
    );
    let dom = &run.stdout;
    assert!(dom.contains("</html>"), "no DOM dumped:\n{}", run.stderr);
    assert!(
        dom.contains("<html lang=\"en\" class=\"js\">"),
        "the page's script did not run"
    );
    assert!(
        dom.contains("<title>toolnorm view: "),
        "title changed: a payload ran"
    );
    assert!(!dom.contains("PWNED</title>"));
    assert!(!dom.contains("<img"), "an img element from session data");
    // Drawn on demand: the first cards and the blocks near the viewport, not all 600.
    let drawn = drawn_cards(dom);
    assert!((40..600).contains(&drawn), "{drawn} cards drawn at load");
    assert!(
        dom.contains("class=\"chunk\""),
        "every block was drawn at load"
    );
    // A deep link to the raw lines of the last call draws it and opens them.
    let url = format!("file://{}#s0-r599", page.display());
    let run = run_chromium_url(&bin, &url, &["--dump-dom", "--window-size=1280,900"]);
    assert!(
        run.console().is_empty(),
        "console output:\n{}",
        run.console().join("\n")
    );
    assert!(
        run.stdout
            .contains("<details class=\"tc-raw target\" id=\"s0-r599\" open=\"\">"),
        "the linked raw lines were not drawn and opened"
    );
    assert!(!run.stdout.contains("<img"));
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn view_page_reads_with_javascript_disabled() {
    let bin = chromium();
    let dir = out_dir().join("view-nojs");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let page = dir.join("view.html");
    view_page(&hostile_session(&dir), &page);
    let html = std::fs::read_to_string(&page).expect("read the page");
    let start = html.find("<script>").expect("the page has a script");
    let end = html[start..].find("</script>").expect("closed") + start + "</script>".len();
    std::fs::write(&page, format!("{}{}", &html[..start], &html[end..])).expect("write");
    let run = run_chromium(&bin, &page, &["--dump-dom"]);
    assert!(
        run.console().is_empty(),
        "console output:\n{}",
        run.console().join("\n")
    );
    let dom = &run.stdout;
    assert!(
        dom.contains("<html lang=\"en\">"),
        "script ran although removed"
    );
    assert_eq!(drawn_cards(dom), 40, "the first cards");
    assert!(dom.contains("<noscript>") || dom.contains("more top-level calls"));
}

/// Light and dark screenshots of a `view` page and of a report preview, kept under target/ (the
/// committed ones in docs/images/ are these, shrunk).
#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn view_and_preview_screenshots_light_and_dark() {
    let bin = chromium();
    let dir = out_dir().join("cards");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let view = dir.join("view.html");
    view_page(
        &crate::cli::util::root().join("corpus/claude/live-claude-2.1.123-write-edit.jsonl.zst"),
        &view,
    );
    for (page, name, size) in [(&view, "view", "1200,1000")] {
        for (mode, extra) in [("light", None), ("dark", Some("--force-dark-mode"))] {
            let shot = dir.join(format!("{name}-{mode}.png"));
            let _ = std::fs::remove_file(&shot);
            let mut args = vec![
                format!("--screenshot={}", shot.display()),
                format!("--window-size={size}"),
                "--hide-scrollbars".to_string(),
            ];
            args.extend(extra.map(str::to_string));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = run_chromium(&bin, page, &args);
            assert!(
                run.console().is_empty(),
                "console output:\n{}",
                run.console().join("\n")
            );
            let png = std::fs::read(&shot).unwrap_or_else(|e| {
                panic!("no screenshot {}: {e}\n{}", shot.display(), run.stderr)
            });
            assert!(
                png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
                "not a real screenshot"
            );
            println!("screenshot: {}", shot.display());
        }
    }
}

/// Record, in the page, every element that takes focus: its card, what it is, and whether its
/// focus is visible (`:focus-visible` and an outline drawn).
const FOCUS_LOG: &str = r#"(() => {
  window.__focus = [];
  document.addEventListener('focusin', (e) => {
    const t = e.target, card = t.closest && t.closest('article.tc');
    const d = t.tagName === 'SUMMARY' ? t.parentElement : null;
    const cs = getComputedStyle(t);
    window.__focus.push({
      tag: t.tagName, card: card ? card.id : null,
      what: t.tagName === 'ARTICLE' ? 'card'
        : t.classList.contains('rawlink') ? 'rawlink'
        : d && d.classList.contains('tc-raw') ? 'raw'
        : d && d.classList.contains('sec') ? ([...d.classList].find((c) => c.startsWith('s-')) || 'sec')
        : t.tagName.toLowerCase(),
      visible: t.matches(':focus-visible') && cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0,
    });
  });
  return true;
})()"#;

/// What has focus now: `[card id, what]`, as FOCUS_LOG names it.
const ACTIVE: &str = r#"(() => { const t = document.activeElement; const c = t.closest('article.tc');
  const d = t.tagName === 'SUMMARY' ? t.parentElement : null;
  return [c ? c.id : null, t.tagName === 'ARTICLE' ? 'card' : d ? [...d.classList].join(' ') : t.tagName.toLowerCase()]; })()"#;

/// Tab through `page` from the top (at most `max` presses) and check that every drawn card's
/// raw link, raw lines and input are reached, each with its focus visible; then that Enter and
/// Space open and close what a summary holds, that Enter on a raw link opens the raw lines, and
/// that j / k and the arrows move between cards, Enter on a card opening its sections.
fn keyboard_walk(tab: &mut crate::cli::cdp::Tab<'_>, url: &str, cards_to_reach: usize, max: usize) {
    tab.navigate(url);
    tab.wait_for(
        "document.documentElement.classList.contains('js') || document.querySelector('article.tc')",
    );
    assert_eq!(tab.eval(FOCUS_LOG), serde_json::json!(true));
    for _ in 0..max {
        tab.key("Tab", false);
    }
    let log = tab.eval("window.__focus");
    let log = log.as_array().expect("a focus log");
    assert!(!log.is_empty(), "Tab moved focus nowhere");
    let ids: Vec<String> = tab
        // Cards shown: not inside a closed `<details>` (the unchanged cards of a preview), whose
        // contents the keyboard rightly skips until it opens them.
        .eval("[...document.querySelectorAll('article.tc')].filter((c) => !c.parentElement.closest('details:not([open])')).map((c) => c.id)")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert!(ids.len() >= cards_to_reach, "{} cards shown", ids.len());
    for id in ids.iter().take(cards_to_reach) {
        let has_input = tab.eval(&format!(
            "!!document.querySelector('#{id} > .tc-main > .secs > details.s-input')"
        )) == serde_json::json!(true);
        let mut wanted = vec!["rawlink", "raw"];
        if has_input {
            wanted.push("s-input");
        }
        for what in wanted {
            assert!(
                log.iter()
                    .any(|f| f["card"] == id.as_str() && f["what"] == what),
                "Tab never reached the {what} of card {id}; focus went: {}",
                serde_json::to_string(log).unwrap()
            );
        }
    }
    let hidden: Vec<&serde_json::Value> = log.iter().filter(|f| f["visible"] != true).collect();
    assert!(hidden.is_empty(), "focus not visible on: {hidden:?}");

    // Enter and Space on a summary: the input opens, closes, opens.
    let first = &ids[0];
    tab.eval(&format!(
        "document.querySelector('#{first} details.s-input > summary, #{first} details.tc-raw > summary').focus()"
    ));
    let open =
        |tab: &mut crate::cli::cdp::Tab<'_>| tab.eval("document.activeElement.parentElement.open");
    assert_eq!(open(tab), false);
    tab.key("Enter", false);
    tab.wait_for("document.activeElement.parentElement.open");
    tab.key("Space", false);
    tab.wait_for("!document.activeElement.parentElement.open");
    tab.key("Space", false);
    tab.wait_for("document.activeElement.parentElement.open");

    // Enter on a raw link: the raw lines open, scrolled to, marked.
    tab.eval(&format!(
        "document.querySelector('#{} a.rawlink').focus()",
        ids[cards_to_reach - 1]
    ));
    tab.key("Enter", false);
    tab.wait_for(
        "document.querySelector('details.tc-raw.target[open]') && location.hash.length > 1",
    );
    let raw_shown = tab.eval(
        "(() => { const d = document.querySelector('details.tc-raw.target'); const r = d.getBoundingClientRect(); \
         return d.querySelector('pre').offsetHeight > 0 && r.top < innerHeight && r.bottom > 0; })()",
    );
    assert_eq!(raw_shown, true, "the linked raw lines are not shown");

    // j / k and the arrows between cards; Enter on a card opens its sections.
    tab.eval("document.activeElement.blur(); history.replaceState(null, '', location.pathname); scrollTo(0, 0)");
    tab.key("j", false);
    let at = tab.eval(ACTIVE);
    assert_eq!(at[1], "card", "j did not focus a card: {at}");
    let start = ids
        .iter()
        .position(|i| at[0] == i.as_str())
        .expect("a drawn card");
    tab.key("j", false);
    assert_eq!(tab.eval(ACTIVE)[0], ids[start + 1].as_str(), "j");
    tab.key("ArrowDown", false);
    assert_eq!(tab.eval(ACTIVE)[0], ids[start + 2].as_str(), "ArrowDown");
    tab.key("k", false);
    tab.key("ArrowUp", false);
    assert_eq!(tab.eval(ACTIVE)[0], ids[start].as_str(), "k, ArrowUp");
    let vis = tab.eval(
        "(() => { const t = document.activeElement, cs = getComputedStyle(t); \
         return t.matches(':focus-visible') && cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0; })()",
    );
    assert_eq!(vis, true, "a card focused by j shows no focus ring");
    let sections = format!(
        "[...document.querySelectorAll('#{} > .tc-main > .secs > details, #{} > details.tc-raw')]",
        ids[start], ids[start]
    );
    tab.key("Enter", false);
    tab.wait_for(&format!("{sections}.every((d) => d.open)"));
    tab.key("Space", false);
    tab.wait_for(&format!("{sections}.every((d) => !d.open)"));
}

#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn view_page_and_report_preview_work_from_the_keyboard() {
    let bin = chromium();
    let dir = out_dir().join("keyboard");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut browser = crate::cli::cdp::Browser::launch(&bin, 1280, 900);

    // A view page with cards drawn later too: j past the first ones draws them.
    let view = dir.join("view.html");
    view_page(&hostile_session(&dir), &view);
    {
        let mut tab = browser.tab();
        let url = format!("file://{}", view.display());
        keyboard_walk(&mut tab, &url, 3, 40);
        tab.eval("document.activeElement.blur(); scrollTo(0, 0)");
        for _ in 0..(page_first_cards() + 5) {
            tab.key("j", false);
        }
        let at = tab.eval(ACTIVE);
        assert_eq!(
            at[0],
            format!("s0-c{}", page_first_cards() + 4),
            "j did not reach the cards drawn later"
        );
    }

    // A report whose failing fixtures show previews (a changed card, two new fixtures).
    let work = tempfile::tempdir().expect("tempdir");
    crate::cli::review_serve::verified_corpus(work.path());
    let report = work.path().join("reports/index.html");
    {
        let mut tab = browser.tab();
        let url = format!("file://{}", report.display());
        keyboard_walk(&mut tab, &url, 4, 160);
    }
    let console = browser.console();
    assert!(
        console.is_empty(),
        "console output:\n{}",
        console.join("\n")
    );
}

/// The cards a view page draws in its HTML (`FIRST_CARDS`).
fn page_first_cards() -> usize {
    toolnorm::report::cards::page::FIRST_CARDS
}

/// `toolnorm review --serve` in the browser: the page served on loopback shows the previews;
/// clicking one fixture's accept button writes its expected file (and only it), the page comes
/// back saying so, and Done stops the server. Nothing logged to the console (the page's forms
/// may post back under its policy).
#[test]
#[ignore = "needs Chromium: run scripts/install-test-deps.sh, then cargo test -- --ignored"]
fn review_page_accepts_a_fixture_with_a_click() {
    let bin = chromium();
    let work = tempfile::tempdir().expect("tempdir");
    let d = work.path();
    crate::cli::review_serve::verified_corpus(d);
    let mut served = crate::cli::review_serve::serve(d, &[]);
    let mut browser = crate::cli::cdp::Browser::launch(&bin, 1280, 900);
    let mut tab = browser.tab();
    tab.navigate(&served.url());
    assert_eq!(
        tab.eval("document.querySelectorAll('form.accept-form').length"),
        3
    );
    let bash = "live-claude-2.1.197-bash";
    let expected = d.join(format!("expected/claude/{bash}.json"));
    assert!(!expected.exists());
    tab.click(&format!(
        "form.accept-form:has(input[value=\"{bash}\"]) button"
    ));
    let s = tab.session.clone();
    tab.b.wait_event("Page.loadEventFired", &s);
    tab.wait_for("document.querySelector('.accepted') !== null");
    assert!(
        tab.eval("document.querySelector('.accepted').textContent")
            .as_str()
            .unwrap()
            .starts_with("accepted: created "),
    );
    assert_eq!(
        tab.eval("document.querySelectorAll('form.accept-form').length"),
        2
    );
    assert!(
        tab.eval("location.hash").as_str().unwrap().contains(bash),
        "the page did not come back at the fixture"
    );
    assert!(expected.is_file(), "the click wrote no expected file");
    assert!(
        !d.join("expected/codex").exists(),
        "another fixture was written"
    );
    tab.click("button.done-btn");
    tab.b.wait_event("Page.loadEventFired", &s);
    let status = served.child.wait().expect("wait");
    assert!(status.success());
    let console = browser.console();
    assert!(
        console.is_empty(),
        "console output:\n{}",
        console.join("\n")
    );
}
