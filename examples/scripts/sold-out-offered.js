// Fails a reply that offers as available a product a tool result marks as
// sold out (status sold out, out of stock or unavailable, in_stock false, or a
// stock of 0). It reads the tool results that are JSON, at any depth.
const tools = JSON.parse(variables.history).filter((m) => m.role === 'tool');

function soldOutNames(content) {
  let data;
  try {
    data = JSON.parse(content);
  } catch (e) {
    return [];
  }
  const found = [];
  const visit = (item) => {
    if (Array.isArray(item)) return item.forEach(visit);
    if (item === null || typeof item !== 'object') return;
    const status = String(item.status ?? item.availability ?? '').toLowerCase();
    const gone = item.stock === 0 || item.in_stock === false
      || /sold out|out of stock|unavailable/.test(status);
    if (gone && typeof item.name === 'string') found.push(item.name);
    Object.values(item).forEach(visit);
  };
  visit(data);
  return found;
}

const soldOut = tools.flatMap((m) => soldOutNames(m.content));
const reply = variables.response;
const OFFERED = /\b(in stock|available|ready to ship|(you )?can (order|buy|get) it|ships? (today|tomorrow))\b/i;

// A sold-out product counts as offered when a sentence names it and offers it.
const offered = [];
for (const sentence of reply.split(/(?<=[.!?])\s+/)) {
  const named = soldOut.filter((name) => sentence.toLowerCase().includes(name.toLowerCase()));
  const negated = /\b(not|no longer|isn't|is not|sold out|out of stock)\b/i.test(sentence);
  if (named.length && OFFERED.test(sentence) && !negated) {
    for (const name of named) {
      const at = sentence.toLowerCase().indexOf(name.toLowerCase());
      offered.push(sentence.slice(at, at + name.length));
    }
  }
}

response.setResponse({
  pass: offered.length === 0,
  reason: offered.length ? 'Offered a sold-out product.' : '',
  matches: offered,
});
