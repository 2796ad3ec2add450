/** The `data:` payloads of a server-sent-events body, in order (both model protocols stream this way). */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    // Lines are read in place; only the unfinished tail is kept (a chunk holds many events).
    let start = 0;
    let newline: number;
    while ((newline = buffer.indexOf("\n", start)) >= 0) {
      if (buffer.startsWith("data:", start)) yield buffer.slice(start + 5, newline).trim();
      start = newline + 1;
    }
    if (start > 0) buffer = buffer.slice(start);
  }
}
