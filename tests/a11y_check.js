// Run by tests/browser.py in every page a browser test opens, as a Playwright init script (like
// page.evaluate, it is not subject to the site's Content-Security-Policy). Once the page has
// loaded: axe-core's WCAG 2.2 A/AA rules (and the best-practice rules named below), then whether
// the page scrolls sideways at its own width and on a 320 px screen. What it finds goes to
// window.__a11yReport (a binding the test exposes); window.__a11yState says "done" at the end.
(() => {
  if (window !== window.top || !/^https?:$/.test(location.protocol)) return;
  // Django's own admin (superusers only) is not made of the site's templates.
  if (location.pathname.startsWith("/admin/")) return;
  const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
  // Headings in order and every part of the page in a landmark: the site's standard too.
  const EXTRA = ["heading-order", "landmark-one-main", "page-has-heading-one", "region"];
  const NARROW = 320;
  window.__a11yState = "waiting";

  const report = (problem) => window.__a11yReport({ url: location.href, ...problem });
  const later = window.setTimeout.bind(window); // the real one, should a test fake the clock
  const pause = (ms) => new Promise((resolve) => later(resolve, ms));

  function describe(el) {
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    if (el.classList.length) name += "." + [...el.classList].join(".");
    return name;
  }

  // The outermost elements that reach past the right edge, outside a sideways scroller.
  function sticking(doc, width) {
    const found = [];
    const scrolls = (el) => /(auto|scroll)/.test(doc.defaultView.getComputedStyle(el).overflowX);
    const walk = (el) => {
      for (const child of el.children) {
        if (child.getBoundingClientRect().right > width + 1) found.push(describe(child));
        else if (!scrolls(child)) walk(child);
      }
    };
    walk(doc.body);
    if (!found.length) {
      // Positioned elements escape the scroller that holds them when it is not positioned.
      for (const el of doc.body.querySelectorAll("*")) {
        if (el.getBoundingClientRect().right > width + 1) found.push(describe(el));
      }
    }
    return found.slice(0, 5);
  }

  function sideways(doc, label) {
    const root = doc.scrollingElement;
    if (root.scrollWidth > root.clientWidth) {
      report({
        kind: "sideways",
        text:
          `scrolls sideways ${label}: scrollWidth ${root.scrollWidth} > clientWidth ` +
          `${root.clientWidth}; past the edge: ${sticking(doc, root.clientWidth).join(", ")}`,
      });
    }
  }

  // The page as it is now, laid out in a 320 px wide frame (scripts not run: sandboxed). Not
  // where the test opens the same pages on a 320 px screen too (window.__a11yNarrowOpenedToo:
  // the accessibility sweep), which checks them there with their scripts run.
  async function narrow() {
    if (window.innerWidth <= NARROW) return sideways(document, `at ${window.innerWidth} px`);
    if (window.__a11yNarrowOpenedToo) return;
    const copy = document.documentElement.cloneNode(true);
    copy.querySelectorAll("script").forEach((s) => s.remove());
    // Styles the page's scripts set go back through the CSSOM: as attributes in the copy's
    // markup, the site's Content-Security-Policy would refuse them.
    const styles = [...copy.querySelectorAll("[style]")].map((el, i) => {
      el.setAttribute("data-a11y-style", i);
      const css = el.getAttribute("style");
      el.removeAttribute("style");
      return css;
    });
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-same-origin");
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    Object.assign(frame.style, {
      position: "fixed", left: "-10000px", top: "0", border: "0",
      width: NARROW + "px", height: window.innerHeight + "px", visibility: "hidden",
    });
    const loaded = new Promise((resolve) => frame.addEventListener("load", resolve));
    frame.srcdoc = "<!doctype html>" + copy.outerHTML;
    document.documentElement.appendChild(frame);
    try {
      await loaded;
      for (const el of frame.contentDocument.querySelectorAll("[data-a11y-style]")) {
        el.style.cssText = styles[el.getAttribute("data-a11y-style")];
      }
      sideways(frame.contentDocument, `at ${NARROW} px`);
    } finally {
      frame.remove();
    }
  }

  async function check() {
    window.__a11yState = "running";
    try {
      if (document.contentType !== "text/html") return;
      await pause(50); // let the page's own scripts draw what they draw at load
      const rules = [...new Set([...axe.getRules(TAGS).map((r) => r.ruleId), ...EXTRA])];
      const results = await axe.run(document, {
        runOnly: { type: "rule", values: rules },
        resultTypes: ["violations"],
      });
      for (const v of results.violations) {
        const nodes = v.nodes.slice(0, 5).map(
          (n) => `    ${n.target.join(" ")}: ${n.html.slice(0, 160)}\n      ${
            (n.failureSummary || "").replace(/\n/g, " ")}`,
        );
        report({ kind: "axe", text: `${v.id} (${v.impact}): ${v.help}\n${nodes.join("\n")}` });
      }
      sideways(document, `at ${window.innerWidth} px`);
      await narrow();
    } catch (error) {
      report({ kind: "error", text: `the accessibility check failed: ${error}` });
    } finally {
      window.__a11yState = "done";
    }
  }

  window.addEventListener("load", () => later(check, 0));
})();
