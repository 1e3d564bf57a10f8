// The console works without this script; it only adds conveniences.
document.addEventListener("DOMContentLoaded", () => {
  // "select all on this page" for the dead-letter list.
  for (const all of document.querySelectorAll("input.select-all")) {
    all.addEventListener("change", () => {
      for (const box of all.form.querySelectorAll("input[name=id]")) box.checked = all.checked;
    });
  }
  // A reload drops the ticked boxes: while any is ticked the page does not refresh, and says so.
  for (const form of document.querySelectorAll("form")) {
    const line = form.querySelector("input.select-all")?.closest("p");
    if (!line) continue;
    const paused = document.createElement("span");
    paused.className = "refresh-paused";
    paused.textContent = "auto-refresh paused while messages are selected";
    paused.hidden = true;
    line.append(" ", paused);
    form.addEventListener("change", () => {
      paused.hidden = !form.querySelector("input[name=id]:checked");
    });
  }
  // Live counts: a page that carries them (#live) polls its JSON and rewrites only the elements
  // marked data-inbox/data-live, so selections and typed text stay as they are.
  const live = document.getElementById("live");
  if (live) {
    const marked = (inbox, field) =>
      document.querySelectorAll(`[data-inbox="${CSS.escape(inbox)}"][data-live="${field}"]`);
    const sum = (points) => points.reduce((a, b) => a + b, 0);
    const height = (n, max) => (max === 0 ? 0 : Math.max(n > 0 ? 1 : 0, (20 * n) / max));
    const bar = (svg, i, y, h, failed) => {
      const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      rect.setAttribute("x", 2 * i);
      rect.setAttribute("y", y.toFixed(1));
      rect.setAttribute("width", "1.6");
      rect.setAttribute("height", h.toFixed(1));
      if (failed) rect.setAttribute("class", "failed");
      svg.append(rect);
    };
    // Processed per minute with the failed attempts stacked on top, as Html.chart draws it.
    const draw = (svg, processed, failed) => {
      const max = Math.max(0, ...processed.map((n, i) => n + (failed[i] || 0)));
      for (const old of svg.querySelectorAll("rect")) old.remove();
      processed.forEach((n, i) => {
        const p = height(n, max);
        const f = height(failed[i] || 0, max);
        bar(svg, i, 20 - p, p, false);
        bar(svg, i, 20 - p - f, f, true);
      });
      const title = svg.querySelector("title");
      if (title) {
        title.textContent = sum(processed) + " processed, " + sum(failed) + " failed attempts in the last hour, per minute";
      }
    };
    const show = (inbox) => {
      for (const [field, text] of Object.entries(inbox.fields)) {
        for (const el of marked(inbox.name, field)) el.textContent = text;
      }
      for (const el of marked(inbox.name, "status")) {
        const badge = el.querySelector(".badge");
        if (badge) {
          badge.className = "badge " + inbox.status;
          badge.textContent = inbox.status;
        }
      }
      const failed = inbox.failed || [];
      for (const svg of marked(inbox.name, "chart")) draw(svg, inbox.processed, failed);
      for (const el of marked(inbox.name, "total")) {
        el.textContent = sum(inbox.processed) + "/h" + (sum(failed) > 0 ? " · " + sum(failed) + " failed" : "");
      }
    };
    const poll = () => {
      if (document.hidden) return;
      fetch(live.dataset.liveSrc, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((r) => (r.ok ? r.json() : null))
        .then((data) => {
          if (!data) return;
          data.inboxes.forEach(show);
          live.dataset.polls = Number(live.dataset.polls || 0) + 1;
        })
        .catch(() => {}); // the next poll tries again; a reload shows what is wrong
    };
    setInterval(poll, 1000 * Number(live.dataset.liveEvery || 10));
  }
  // Refresh read-only pages (every 15 s; every 60 s where the counts are live, for the tables)
  // unless a form field has focus or messages are selected. Search results stay as found.
  if (!document.querySelector("form[action$='/run'], [data-no-refresh]")) {
    setInterval(() => {
      const active = document.activeElement;
      if (active && ["INPUT", "BUTTON", "TEXTAREA", "SELECT"].includes(active.tagName)) return;
      if (document.querySelector("input[name=id]:checked")) return;
      location.reload();
    }, live ? 60000 : 15000);
  }
});
