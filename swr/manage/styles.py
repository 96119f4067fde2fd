"""The style sheets of the evidence HTML (passage cards, answers, the answer check) and of the
exported evidence card."""
from __future__ import annotations

CSS = """
.swr-passage{border:1px solid #d0d7de;border-radius:8px;padding:.6em .8em;margin:.6em 0;
 background:#fff;color:#1f2328;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.swr-head{font-size:.85em;color:#57606a;margin-bottom:.4em}
.swr-num{font-weight:700;color:#0969da}
.swr-src{font-weight:600;color:#1f2328}
.swr-text{white-space:pre-wrap;line-height:1.55;overflow-wrap:anywhere}
.swr-text mark{background:#fff3b0;color:inherit;border-radius:3px;padding:0 .1em}
.swr-scores{margin-top:.45em;font-size:.78em;color:#57606a}
.swr-badge{display:inline-block;border:1px solid #d0d7de;border-radius:10px;padding:0 .5em;
 margin:.1em .3em .1em 0;background:#f6f8fa}
.swr-answer{white-space:pre-wrap;line-height:1.55;overflow-wrap:anywhere}
.swr-answer a,a.swr-cite{color:#0969da;text-decoration:none;font-weight:600}
.swr-split{white-space:pre-wrap;line-height:1.7;overflow-wrap:anywhere;
 font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.swr-sent{border-radius:3px;padding:0 .1em}
.swr-alt-0{background:#ddf4ff}
.swr-alt-1{background:#fbefff}
.swr-sent-n{font-size:.7em;color:#57606a;vertical-align:super;margin-right:.2em;
 user-select:none}
.swr-more{color:#57606a;font-style:italic}
.swr-tok{background:#eef1f4;border-radius:4px;padding:0 .3em;margin-right:.25em;font-size:.9em}
.swr-rejected{background:#ffebe9;border:2px solid #cf222e;border-radius:8px;color:#82071e;
 padding:.6em .8em;margin:.3em 0 .6em;font-size:1.02em}
.swr-chk.ok{border-bottom:2px solid #2da44e}
.swr-chk.bad{background:#ffebe9;border-bottom:2px wavy #cf222e}
.swr-chk.cite{border-bottom:2px dashed #bf8700}
a.swr-chk-mark,span.swr-chk-mark{font-weight:700;text-decoration:none;margin:0 .15em}
.swr-chk-mark.ok{color:#1a7f37}.swr-chk-mark.bad{color:#cf222e}.swr-chk-mark.cite{color:#9a6700}
.swr-cite-bad a{color:#cf222e;text-decoration:line-through}
a.swr-cite-check{color:#1a7f37;text-decoration:none;font-weight:600;font-style:italic}
.swr-check{margin-top:.5em;font-size:.88em}
.swr-support{padding:.2em .5em;border-radius:6px;background:#f6f8fa;margin-bottom:.3em}
.swr-support.rejected{background:#ffebe9;color:#82071e}
.swr-support.supported{background:rgb(218,251,225);color:rgb(17,99,41)}
.swr-support.unconfirmed{background:#fff8c5;color:#7d4e00}
.swr-chk-row{border-left:3px solid #d0d7de;padding:.1em .5em;margin:.2em 0}
.swr-chk-row.ok{border-color:#2da44e}.swr-chk-row.bad{border-color:#cf222e}.swr-chk-row.cite{border-color:#bf8700}
.swr-chk-row summary{cursor:pointer}
.swr-chk-row ul{margin:.2em 0 .2em 1.2em;padding:0}
.swr-chk-window{margin:.2em 0 .3em .5em;padding-left:.5em;border-left:2px solid #d0d7de;color:#57606a;
 white-space:pre-wrap}
"""

CARD_CSS = """
body{margin:0;background:#f6f8fa;color:#1f2328;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:860px;margin:2em auto;padding:0 1em}
h1{font-size:1.4em;margin-bottom:.2em}
h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
.swr-meta{color:#57606a;font-size:.9em}
.swr-question,.swr-answer-box{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.7em .9em}
.swr-question{white-space:pre-wrap;font-weight:600}
.swr-kind{font-size:.75em;font-weight:400;border:1px solid #d0d7de;border-radius:10px;padding:0 .5em;
 margin-left:.5em;background:#fff}
table.swr-settings{border-collapse:collapse;background:#fff;font-size:.9em}
table.swr-settings td{border:1px solid #d0d7de;padding:.25em .6em;vertical-align:top;white-space:pre-wrap}
footer{margin:2em 0;color:#57606a;font-size:.8em}
"""
