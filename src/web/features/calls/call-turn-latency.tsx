import { TURN_LATENCY_TEXTS, type TurnLatency } from "@shared/calls";

const ms = (value: number | undefined) => (value === undefined ? TURN_LATENCY_TEXTS.missing : `${value} ms`);

/** Each caller turn of a pipeline call: how long after the end of the caller's speech each stage came. */
export function CallTurnLatency({ turns }: { turns: readonly TurnLatency[] }) {
  return (
    <table className="w-full text-sm tabular-nums" data-testid="turn-latency">
      <thead>
        <tr className="text-left text-xs text-muted-foreground">
          {TURN_LATENCY_TEXTS.columns.map((c) => (
            <th key={c} className="font-medium">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {turns.map((t, i) => (
          <tr key={t.speechEndedAtMs}>
            <td>{i + 1}</td>
            <td>{ms(t.transcriptMs)}</td>
            <td>{ms(t.firstTokenMs)}</td>
            <td>{ms(t.firstVoiceAudioMs)}</td>
            <td>{ms(t.firstAudioSentMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
