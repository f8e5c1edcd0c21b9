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

  window.addEventListener("load", () => {
    if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return;
    MathJax.startup.promise.then(() => {
      fit();
      window.addEventListener("resize", fit);
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
