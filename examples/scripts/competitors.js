// Fails a reply that names a competitor, and marks each mention.
// The list lives here, once; matching ignores case.
const COMPETITORS = ['Acme Support', 'HelpCo', 'DeskPro'];

const reply = variables.response;
const lower = reply.toLowerCase();
const mentions = [];
for (const name of COMPETITORS) {
  let at = lower.indexOf(name.toLowerCase());
  while (at >= 0) {
    mentions.push(reply.slice(at, at + name.length));
    at = lower.indexOf(name.toLowerCase(), at + name.length);
  }
}

response.setResponse({
  pass: mentions.length === 0,
  reason: mentions.length ? 'A competitor is named.' : '',
  matches: mentions,
});
