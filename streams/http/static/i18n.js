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
  const korean = document.documentElement.lang === "ko";
  return text.replace(/\{(\w+)\}([^{]*)/g, (all, key, rest) => {
    if (!(key in values)) return all;
    const word = String(values[key]);
    return word + (korean ? koreanAfter(word, rest) : rest);
  });
}
// Korean particles by the word a placeholder holds, as replay/i18n/korean.py chooses them (the catalogue
// writes the generic form, {card}을(를); tests/streams/http/test_i18n_korean_js.py keeps the two equal):
// the final consonant of the word's last hangul syllable, or of its number as read aloud (12: 십이).
const KOREAN_PARTICLES = [
  ["이(가)", "이", "가"],
  ["은(는)", "은", "는"],
  ["을(를)", "을", "를"],
  ["과(와)", "과", "와"],
  ["와(과)", "과", "와"],
  ["(으)로", "으로", "로"],
  ["(이)", "이", ""],
];
function koreanFinal(word) {
  const code = word ? word.charCodeAt(word.length - 1) : 0;
  if (code >= 0xac00 && code <= 0xd7a3) return (code - 0xac00) % 28;
  const digits = /[0-9]+$/.exec(word);
  if (!digits) return null;
  const number = digits[0].replace(/^0+/, "");
  if (!number) return 21; // 영
  const zeros = number.length - number.replace(/0+$/, "").length;
  if (zeros === 0) return [21, 8, 0, 16, 0, 0, 1, 8, 8, 0][Number(number[number.length - 1])];
  if (zeros < 4) return [17, 1, 4][zeros - 1]; // 십 백 천
  const myriads = Math.floor(zeros / 4); // 만 억 조
  return myriads <= 3 ? [4, 1, 0][myriads - 1] : null;
}
function koreanAfter(word, rest) {
  for (const [generic, consonant, vowel] of KOREAN_PARTICLES) {
    if (!rest.startsWith(generic)) continue;
    const end = koreanFinal(word);
    if (end === null) return rest;
    const form = generic === "(으)로" ? (end === 0 || end === 8 ? vowel : consonant) : end ? consonant : vowel;
    return form + rest.slice(generic.length);
  }
  return rest;
}
function langLink(url) {
  const lang = document.documentElement.dataset.langLink;
  if (!lang || typeof url !== "string" || !url.startsWith("/") || url.startsWith("//")) return url;
  const parsed = new URL(url, location.origin);
  parsed.searchParams.set("lang", lang);
  return parsed.pathname + parsed.search + parsed.hash;
}
