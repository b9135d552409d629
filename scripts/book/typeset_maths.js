// Typeset the website's formulas once, when the site is built (called by _ext/typeset_maths.py).
//
// Reads JSON from stdin: {"mathjax": folder of the MathJax 3 the site ships (sphinx-mathjax-offline's
// copy), "fontURL": where the stylesheet finds MathJax's fonts, "config": the site's mathjax3_config,
// "scale": the formulas' size relative to the text's, "formulas": [[TeX, display (true/false)], ...]}.
// Writes JSON to stdout: {"html": [one <mjx-container> per formula, in order], "css": the stylesheet
// those formulas need, "errors": [[index, MathJax's message], ...] for formulas it could not read}.
//
// The output is MathJax's own CommonHTML with its MathML beside it for screen readers (the
// assistive-mml extension), exactly what the browser would have made, so a page reads the same
// without running MathJax.
"use strict";

const path = require("path");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const config = Object.assign({}, job.config || {});
  config.loader = {load: ["input/tex", "output/chtml", "a11y/assistive-mml"]};
  config.chtml = Object.assign({}, config.chtml || {}, {fontURL: job.fontURL, scale: job.scale, matchFontHeight: false});
  delete config.options;   // the menu's settings: no menu without the script
  const MathJax = require(path.join(job.mathjax, "node-main.js"));
  MathJax.init(config).then(async (mj) => {
    const adaptor = mj.startup.adaptor;
    const html = [];
    const errors = [];
    for (const [i, [tex, display]] of job.formulas.entries()) {
      // the promise form loads the TeX extensions a formula needs (\boldsymbol, ...) on the way
      const out = adaptor.outerHTML(await mj.tex2chtmlPromise(tex, {display: display}));
      const error = out.match(/data-mjx-error="([^"]*)"/);
      if (error || out.includes("<mjx-merror")) errors.push([i, error ? error[1] : "MathJax could not read it"]);
      html.push(out);
    }
    const css = adaptor.textContent(mj.chtmlStylesheet());
    process.stdout.write(JSON.stringify({html, css, errors}));
  }).catch((err) => {
    process.stderr.write(String(err && err.stack || err) + "\n");
    process.exit(1);
  });
});
