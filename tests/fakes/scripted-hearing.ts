/**
 * How the stand-in transcribers "hear" without recognising speech: each utterance of `userSays`
 * is heard once `speechMs` of audio has arrived since the last one (its start), then, after
 * `finalAfterMs` more, heard in full (its end).
 */
export interface HearingScript {
  userSays?: string[];
  speechMs?: number;
  finalAfterMs?: number;
}

export type Heard = { kind: "start"; text: string; startMs: number; heardMs: number } | { kind: "final"; text: string; startMs: number; endMs: number };

export function scriptedHearing(script: HearingScript): (ms: number) => Heard | null {
  const userSays = [...(script.userSays ?? [])];
  let sinceUtterance = 0;
  let totalMs = 0;
  let hearing: { text: string; startedMs: number; heardMs: number } | null = null;
  return (ms) => {
    totalMs += ms;
    sinceUtterance += ms;
    if (!hearing && sinceUtterance >= (script.speechMs ?? 300) && userSays.length > 0) {
      hearing = { text: userSays.shift()!, startedMs: totalMs - sinceUtterance, heardMs: 0 };
      return { kind: "start", text: hearing.text, startMs: hearing.startedMs, heardMs: sinceUtterance };
    }
    if (!hearing) return null;
    hearing.heardMs += ms;
    if (hearing.heardMs < (script.finalAfterMs ?? 200)) return null;
    const done = { kind: "final" as const, text: hearing.text, startMs: hearing.startedMs, endMs: totalMs };
    hearing = null;
    sinceUtterance = 0;
    return done;
  };
}
