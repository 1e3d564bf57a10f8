// The console works without this script; it only adds conveniences.
document.addEventListener("DOMContentLoaded", () => {
  // "select all on this page" for the dead-letter list.
  for (const all of document.querySelectorAll("input.select-all")) {
    all.addEventListener("change", () => {
      for (const box of all.form.querySelectorAll("input[name=id]")) box.checked = all.checked;
    });
  }
  // Refresh read-only pages every 15 s unless a form field has focus.
  if (!document.querySelector("form[action$='/run']")) {
    setInterval(() => {
      const active = document.activeElement;
      if (!active || !["INPUT", "BUTTON", "TEXTAREA"].includes(active.tagName)) location.reload();
    }, 15000);
  }
});
