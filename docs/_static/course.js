/* Display formulas fit the text column.  MathJax 3 does not break lines, so a
   formula a little wider than the column is typeset a little smaller instead,
   but never smaller than the prose around it (its sub- and superscripts then
   stay above 11 px); one wider still keeps that size and scrolls sideways in
   its own box, under a scrollbar course.css draws.  Done again when the window
   changes size. */
(() => {
  const MIN_FONT_PX = 16;

  function fit() {
    for (const math of document.querySelectorAll('mjx-container[display="true"]')) {
      // MathJax sets a size of its own (to match the text's x-height): start from it.
      if (math.dataset.mathjaxFontSize === undefined) math.dataset.mathjaxFontSize = math.style.fontSize;
      math.style.fontSize = math.dataset.mathjaxFontSize;
      for (let tries = 0; tries < 3 && math.clientWidth > 0 && math.scrollWidth > math.clientWidth; tries++) {
        const size = parseFloat(getComputedStyle(math).fontSize);
        const smaller = Math.max(MIN_FONT_PX, (size * (math.clientWidth - 1)) / math.scrollWidth);
        if (smaller >= size) break;
        math.style.fontSize = `${smaller.toFixed(2)}px`;
      }
    }
  }

  // A box that scrolls is a Tab stop, so the arrow keys can scroll it (WCAG 2.1.1); one that
  // does not is none: the package gives every drawing's box tabindex="0" because it cannot know
  // the column the drawing lands in, and a Tab stop with nothing to scroll only slows a keyboard
  // reader down.  Which boxes scroll depends on the window's width: done again when it changes.
  const SCROLLS = ["auto", "scroll"];
  function tabStops() {
    const article = document.querySelector("article.bd-article");
    if (!article) return;
    for (const box of article.querySelectorAll("*")) {
      const style = getComputedStyle(box);
      // By any amount, as the theme judges its code blocks (a pixel of rounding makes a box scroll).
      const sideways = SCROLLS.includes(style.overflowX) && box.scrollWidth > box.clientWidth;
      const down = SCROLLS.includes(style.overflowY) && box.scrollHeight > box.clientHeight;
      if (sideways || down) {
        box.tabIndex = 0;
      } else if ((SCROLLS.includes(style.overflowX) || SCROLLS.includes(style.overflowY)) && box.tabIndex === 0
                 && !box.matches("a[href], button, input, select, textarea, summary")) {
        box.tabIndex = -1;  // still focusable from a script or a click, not by Tab
      }
    }
  }

  function layOut() {
    fit();
    tabStops();
  }

  window.addEventListener("load", () => {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset ? MathJax.startup.promise : Promise.resolve()).then(() => {
      layOut();
      window.addEventListener("resize", layOut);
    });
  });
})();

/* The download menu's source entry is the lesson's notebook (or index.md):
   saved as a file, not opened as JSON text in a new tab. */
document.addEventListener("DOMContentLoaded", () => {
  for (const link of document.querySelectorAll("a.btn-download-source-button")) {
    link.setAttribute("download", "");
    link.removeAttribute("target");
  }
});
