// Client: turns a chunked watch body into lines. Chunk boundaries fall anywhere (mid-event, mid-character
// before decoding), so text is buffered until each newline; the server ends every event with one.

export class LineSplitter {
  private rest = '';

  /** The complete, non-empty lines that `text` finishes; the unfinished tail waits for the next chunk. */
  push(text: string): string[] {
    const parts = (this.rest + text).split('\n');
    this.rest = parts.pop() ?? '';
    return parts.map(stripCr).filter((l) => l.trim() !== '');
  }

  /** At end of stream: what is left (an event the server sent without its newline, or a cut-off one). */
  end(): string[] {
    const last = stripCr(this.rest);
    this.rest = '';
    return last.trim() === '' ? [] : [last];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
