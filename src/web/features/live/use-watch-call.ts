/**
 * One call opened on the board: its socket (watch-socket.ts), its state (live-state.ts) and the
 * supervisor's commands, with the toasts of refusals and microphone trouble.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { isSessionEndedClose } from "@shared/auth";
import { LIVE_TEXTS } from "@shared/live";
import { toast } from "@/components/ui/sonner";
import { useSessionEnded } from "@/lib/session";
import { initialWatch, watchReducer } from "./live-state";
import { WatchSocket } from "./watch-socket";

export interface Heard {
  /** Milliseconds of the call played by this browser since it started listening. */
  playedMs: number;
  level: number;
}

export function useWatchCall(callId: string | null) {
  const [view, dispatch] = useReducer(watchReducer, initialWatch);
  const [heard, setHeard] = useState<Heard>({ playedMs: 0, level: 0 });
  const [micStarting, setMicStarting] = useState(false);
  const socketRef = useRef<WatchSocket | null>(null);
  const sessionEnded = useSessionEnded();

  useEffect(() => {
    if (!callId) return;
    dispatch({ type: "reset" });
    const socket = new WatchSocket(callId, {
      message: (message) => {
        if (message.type === "error") toast.error(message.message);
        else dispatch(message);
        // Granted, or refused: either way the button stops saying it is starting.
        if (message.type === "error" || (message.type === "control" && message.control.youHaveControl)) setMicStarting(false);
      },
      close: (opened, code, reason) => {
        if (socketRef.current !== socket) return;
        socketRef.current = null;
        if (isSessionEndedClose(code, reason)) return void sessionEnded();
        // Refused before the upgrade: not (or no longer) a call in progress of this account.
        dispatch({ type: "closed", reason: opened ? "The connection to this call was lost. Open it again from the board." : LIVE_TEXTS.notLive });
        setMicStarting(false);
      },
      heard: (playedMs, level) => setHeard((h) => (h.playedMs === playedMs && h.level === level ? h : { playedMs, level })),
      micFailed: (message) => {
        setMicStarting(false);
        toast.error("Microphone unavailable", { description: message });
      },
    });
    socketRef.current = socket;
    return () => {
      socketRef.current = null;
      socket.close();
      setHeard({ playedMs: 0, level: 0 });
      setMicStarting(false);
    };
  }, [callId, sessionEnded]);

  // A new call starts from a blank view (the reset above runs before the new snapshot arrives).
  const shown = view.call && view.call.callId !== callId ? initialWatch : view;

  const listen = useCallback((on: boolean) => {
    const socket = socketRef.current;
    if (!socket) return;
    if (on) socket.ensurePlayback();
    socket.send({ type: "listen", on });
  }, []);

  const guide = useCallback((text: string): boolean => {
    const sent = socketRef.current?.send({ type: "guide", text }) ?? false;
    if (!sent) toast.error("Failed to send the guidance");
    return sent;
  }, []);

  const takeOver = useCallback(() => {
    const socket = socketRef.current;
    if (!socket) return;
    setMicStarting(true);
    void socket.takeOver();
  }, []);

  const handBack = useCallback(() => {
    socketRef.current?.handBack();
    setMicStarting(false);
  }, []);

  const endCall = useCallback(() => socketRef.current?.send({ type: "end_call" }) ?? false, []);

  return { view: shown, heard, micStarting, listen, guide, takeOver, handBack, endCall };
}
