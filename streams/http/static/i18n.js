// The words of the page's scripts in the page's language (replay/i18n, docs/web.md "Languages"): the
// template renders the messages its scripts show into a JSON block (#messages); _("{n} waiting", {n: 3})
// is the translation with its {names} filled. A message the block lacks is shown as written (English).
// langLink(url) keeps a language chosen by ?lang= on a link of this service (<html data-lang-link>).
"use strict";
function _(message, values) {
  if (_.table === undefined) {
    const block = document.getElementById("messages");
    try {
      _.table = block ? JSON.parse(block.textContent) : {};
    } catch {
      _.table = {};
    }
  }
  const text = Object.prototype.hasOwnProperty.call(_.table, message) ? _.table[message] || message : message;
  if (!values) return text;
  return text.replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));
}
function langLink(url) {
  const lang = document.documentElement.dataset.langLink;
  if (!lang || typeof url !== "string" || !url.startsWith("/") || url.startsWith("//")) return url;
  const parsed = new URL(url, location.origin);
  parsed.searchParams.set("lang", lang);
  return parsed.pathname + parsed.search + parsed.hash;
}
