/**
 * One test call from the panel: microphone permission, the test session, the live socket and
 * the audio, with the toasts and transcript lines of spec §4 and §8. The state machine itself
 * is call-state.ts; this hook runs its effects.
 */
import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from "react";
import { formatDuration, TEST_CALL_MESSAGES, testSessionSchema, type TestSession, type TranscriptEntry, type UserEndReason } from "@shared/calls";
import { toast } from "@/components/ui/sonner";
import { isSessionEndedClose } from "@shared/auth";
import { ApiError, api } from "@/lib/api";
import { useSessionEnded } from "@/lib/session";
import { MIC_REQUIRED_MESSAGE, isPermissionDenied, requestMicrophone, startCapture, stopStream, type Capture } from "@/lib/audio/audio-capture";
import { createPlayback } from "@/lib/audio/audio-playback";
import { CallSocket, type CallSocketHandlers } from "./call-socket";
import { callReducer, initialCallView, isLive, type CallAction, type CallPhase, type Notice } from "./call-state";

/**
 * Spec §8: a tool that could not run (no HTTP answer: refused, timed out, unreachable) is an
 * error toast; one whose endpoint answered with success false is a warning with its status.
 */
function toastToolOutcome(entry: TranscriptEntry) {
  if (entry.type !== "tool-response" || !entry.isError) return;
  const status = entry.toolData?.status ?? 0;
  if (status > 0) toast.warning(TEST_CALL_MESSAGES.toolStatus(status));
  else toast.error(TEST_CALL_MESSAGES.toolFailed, { description: entry.content });
}

export interface Levels {
  mic: number;
  assistant: number;
  assistantSpeaking: boolean;
}

const QUIET: Levels = { mic: 0, assistant: 0, assistantSpeaking: false };

function errorMessage(err: unknown): string {
  return err instanceof Error && err.message ? err.message : "Unknown error";
}

function noticeOf(err: unknown): Notice {
  const missingKey = err instanceof ApiError && err.code === "missing_api_key";
  return { title: TEST_CALL_MESSAGES.startFailed, message: errorMessage(err), settingsLink: missingKey };
}

interface HandlerDeps {
  dispatch: (action: CallAction) => void;
  setLevels: Dispatch<SetStateAction<Levels>>;
  phase: () => CallPhase;
  /** The socket closed: drop the hook's reference to it. */
  forget: () => void;
  /** The sign-in session ended (SESSION_ENDED_CLOSE): go and sign in again. */
  sessionEnded: () => void;
}

/** What the panel does with each event of the live socket (spec §4, §8). */
function socketHandlers({ dispatch, setLevels, phase, forget, sessionEnded }: HandlerDeps): CallSocketHandlers {
  let opened = false;
  // A transcript index can be sent again (replaced); its tool toast is shown once.
  const toolToasts = new Set<number>();
  let wasActive = false;
  return {
    open: () => {
      opened = true;
      dispatch({ type: "opened", at: Date.now() });
    },
    message: (message) => {
      switch (message.type) {
        case "status":
          if (message.state === "active" && phase() === "connecting") toast.success(TEST_CALL_MESSAGES.started);
          if (message.state === "active") wasActive = true;
          dispatch({ type: "status", state: message.state, text: message.text });
          break;
        case "started":
          dispatch({ type: "started", callId: message.callId });
          break;
        case "transcript":
          dispatch({ type: "transcript", index: message.index, entry: message.entry });
          if (!toolToasts.has(message.index) && message.entry.type === "tool-response") {
            toolToasts.add(message.index);
            toastToolOutcome(message.entry);
          }
          break;
        case "transcript_delta":
          dispatch({ type: "transcript-delta", index: message.index, text: message.text });
          break;
        case "error":
          toast.error(message.message);
          break;
        case "ended": {
          // Ended before it was ever active: the engine could not open the provider's session.
          const neverStarted = !wasActive;
          dispatch({ type: "ended", outcome: { reason: message.reason, durationMs: message.durationMs, cost: message.cost } });
          if (neverStarted) toast.error(TEST_CALL_MESSAGES.initFailed(message.reason));
          else toast.success(TEST_CALL_MESSAGES.ended, { description: `${formatDuration(message.durationMs)} · $${message.cost.toFixed(2)}` });
          break;
        }
        default:
          break;
      }
    },
    error: (wasOpen) => {
      if (!wasOpen) toast.error(TEST_CALL_MESSAGES.startFailed, { description: "Could not connect to the call server." });
      dispatch({ type: "socket-error", opened: wasOpen });
    },
    close: (code, reason) => {
      const signedOut = isSessionEndedClose(code, reason);
      // Refused after the upgrade (no such session, no key any more, ...): the call never started.
      if (!signedOut && opened && phase() === "connecting" && code !== 1000) toast.error(TEST_CALL_MESSAGES.initFailed(reason || `Disconnected (${code})`));
      forget();
      dispatch({ type: "closed", code, reason, opened });
      setLevels(QUIET);
      // The session ended: nothing here works any more until the user signs in again.
      if (signedOut) void sessionEnded();
    },
    micLevel: (mic) => setLevels((l) => (l.mic === mic ? l : { ...l, mic })),
    speaker: (level, playing) => setLevels((l) => ({ ...l, assistant: playing ? level : 0, assistantSpeaking: playing })),
  };
}

export function useTestCall(assistant: { id: string; name: string } | null) {
  const [view, setView] = useState(initialCallView);
  const sessionEnded = useSessionEnded();
  const [levels, setLevels] = useState<Levels>(QUIET);
  const [now, setNow] = useState(() => Date.now());
  // The one state machine (call-state.ts), run here rather than by useReducer so handlers that
  // outlive a render read the state of the last action at once: a second click in the same tick
  // sees "connecting". React's state is its copy for rendering.
  const viewRef = useRef(initialCallView);
  const phase = useCallback(() => viewRef.current.phase, []);
  const socketRef = useRef<CallSocket | null>(null);
  /** Bumped by each start and by unmount: effects of an abandoned start check it and clean up. */
  const attemptRef = useRef(0);

  const dispatch = useCallback((action: CallAction) => {
    viewRef.current = callReducer(viewRef.current, action);
    setView(viewRef.current);
  }, []);

  const start = useCallback(async () => {
    if (!assistant) {
      toast.error(TEST_CALL_MESSAGES.noAssistant);
      return;
    }
    // Spec §4: starting while active or connecting does nothing.
    if (isLive(phase())) return;
    const attempt = ++attemptRef.current;
    const abandoned = () => attempt !== attemptRef.current;
    dispatch({ type: "starting" });
    setLevels(QUIET);

    let playback: ReturnType<typeof createPlayback> | null = null;
    let stream: MediaStream | null = null;
    let capture: Capture | null = null;
    const release = () => {
      capture?.stop();
      playback?.close();
      if (stream) stopStream(stream);
    };
    const micFailed = (err: unknown) => {
      const message = TEST_CALL_MESSAGES.micError(errorMessage(err));
      dispatch({ type: "start-failed", notice: null, line: message });
      toast.error(message);
    };
    try {
      // Created inside the click, so the browser lets it play.
      playback = createPlayback({ played: (report) => socketRef.current?.played(report) });
      stream = await requestMicrophone();
    } catch (err) {
      release();
      if (abandoned()) return;
      if (isPermissionDenied(err)) {
        dispatch({ type: "mic-denied", line: MIC_REQUIRED_MESSAGE });
        toast.error(TEST_CALL_MESSAGES.startFailed, { description: MIC_REQUIRED_MESSAGE });
      } else micFailed(err);
      return;
    }
    if (abandoned()) return release();

    // The audio path is ready before the call exists: a broken one never creates a call record.
    try {
      capture = await startCapture(stream, (chunk) => socketRef.current?.sendAudio(chunk.pcm, chunk.level));
    } catch (err) {
      release();
      if (!abandoned()) micFailed(err);
      return;
    }
    if (abandoned()) return release();

    let session: TestSession;
    try {
      const [created] = await Promise.all([api<unknown>("/api/calls/test-session", { body: { assistantId: assistant.id } }).then((body) => testSessionSchema.parse(body)), playback.ready]);
      session = created;
    } catch (err) {
      release();
      if (abandoned()) return;
      const notice = noticeOf(err);
      dispatch({ type: "start-failed", notice });
      toast.error(TEST_CALL_MESSAGES.startFailed, { description: notice.message });
      return;
    }
    if (abandoned()) return release();

    const forget = () => {
      if (socketRef.current === socket) socketRef.current = null;
    };
    const socket = new CallSocket(session.session_id, playback, socketHandlers({ dispatch, setLevels, phase, forget, sessionEnded }));
    socketRef.current = socket;
    socket.attachCapture(capture);
  }, [assistant, dispatch, phase, sessionEnded]);

  const end = useCallback(
    (reason: UserEndReason = "User ended call") => {
      if (!isLive(phase())) return;
      const socket = socketRef.current;
      if (!socket) {
        // Still asking for the microphone or the session: abandon the attempt.
        attemptRef.current += 1;
        dispatch({ type: "start-failed", notice: null });
        return;
      }
      dispatch({ type: "ending" });
      socket.end(reason);
    },
    [dispatch, phase],
  );

  const sendMessage = useCallback((text: string): boolean => {
    const content = text.trim();
    // Spec §4: blocked when blank, inactive or connecting.
    if (content === "" || phase() !== "active") return false;
    const sent = socketRef.current?.sendText(content) ?? false;
    if (!sent) toast.error(TEST_CALL_MESSAGES.sendFailed);
    return sent;
  }, [phase]);

  const toggleMic = useCallback(() => {
    if (phase() !== "active" || !socketRef.current) return;
    const on = !viewRef.current.micOn;
    socketRef.current.setMicrophone(on);
    dispatch({ type: "mic", on });
    if (on) toast.success(TEST_CALL_MESSAGES.micOn);
    else toast.info(TEST_CALL_MESSAGES.micOff);
  }, [dispatch, phase]);

  /** A fresh panel for the next call (nothing happens during one). */
  const reset = useCallback(() => {
    if (isLive(phase())) return;
    dispatch({ type: "reset" });
  }, [dispatch, phase]);

  // The running duration ticks while the call is live.
  useEffect(() => {
    if (view.phase !== "active" || view.startedAt === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [view.phase, view.startedAt]);

  // Unmount: stop everything; a live call ends as if the panel was closed.
  useEffect(
    () => () => {
      attemptRef.current += 1;
      socketRef.current?.dispose("Sheet closed");
      socketRef.current = null;
    },
    [],
  );

  const elapsedMs = view.outcome ? view.outcome.durationMs : view.startedAt !== null && view.phase === "active" ? Math.max(0, now - view.startedAt) : null;

  return { view, levels, elapsedMs, start, end, sendMessage, toggleMic, reset };
}
