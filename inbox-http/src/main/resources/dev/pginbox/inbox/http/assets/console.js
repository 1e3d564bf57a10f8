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
  // Refresh read-only pages every 15 s unless a form field has focus or messages are selected.
  if (!document.querySelector("form[action$='/run']")) {
    setInterval(() => {
      const active = document.activeElement;
      if (active && ["INPUT", "BUTTON", "TEXTAREA", "SELECT"].includes(active.tagName)) return;
      if (document.querySelector("input[name=id]:checked")) return;
      location.reload();
    }, 15000);
  }
});
