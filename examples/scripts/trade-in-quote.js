// Fails a reply that quotes a trade-in amount before the conversation has
// settled the phone's model, its storage capacity and its battery health.
const messages = JSON.parse(variables.history);
const said = messages
  .filter((m) => m.role !== 'tool')
  .map((m) => m.content.toLowerCase())
  .join('\n');

// What each fact looks like when it has been asked for or given.
const KNOWN = {
  model: /\bmodel\b|\biphone\s*\d+|\bgalaxy\s+[a-z]?\d+|\bpixel\s*\d+/,
  capacity: /\b(storage|capacity)\b|\b\d+\s*(gb|tb)\b/,
  battery: /\bbattery\b/,
};
const missing = Object.keys(KNOWN).filter((fact) => !KNOWN[fact].test(said));

// A quote: an amount of money near the words of a trade-in offer.
const QUOTE = /(trade[- ]?in|we (can|could) (offer|give)|(offer|give) you|credit of)[^.!?\n]{0,60}?([$€£]\s?\d[\d,.]*|\d[\d,.]*\s?(dollars|euros|usd|eur))/gi;
const quotes = [...variables.response.matchAll(QUOTE)].map((m) => m[0]);

const fails = quotes.length > 0 && missing.length > 0;
response.setResponse({
  pass: !fails,
  reason: fails ? 'Quoted a trade-in without asking for: ' + missing.join(', ') : '',
  matches: fails ? quotes : [],
});
