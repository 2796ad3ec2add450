/**
 * The board's list of calls in progress, from `WS /api/live/board` (src/shared/live.ts): a
 * snapshot on open, then one message per change — no polling. A dropped socket is opened again
 * with backoff; its fresh snapshot replaces the stale list.
 */
import { useEffect, useReducer } from "react";
import { isSessionEndedClose } from "@shared/auth";
import { boardServerMessageSchema } from "@shared/live";
import { useSessionEnded } from "@/lib/session";
import { parseFrame, socketUrl } from "@/lib/socket-url";
import { boardReducer, initialBoard, reconnectDelayMs } from "./live-state";

/** `enabled`: false for a member whose role the board would refuse (no socket is opened). */
export function useLiveBoard(enabled = true) {
  const [board, dispatch] = useReducer(boardReducer, initialBoard);
  const sessionEnded = useSessionEnded();

  useEffect(() => {
    if (!enabled) return;
    let ws: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let attempt = 0;
    let disposed = false;

    const connect = () => {
      timer = null;
      const socket = new WebSocket(socketUrl("/api/live/board"));
      ws = socket;
      socket.onopen = () => {
        attempt = 0;
        dispatch({ type: "connected" });
      };
      socket.onmessage = (event: MessageEvent<unknown>) => {
        const message = typeof event.data === "string" ? parseFrame(boardServerMessageSchema, event.data) : undefined;
        if (message) dispatch(message);
      };
      socket.onclose = (event) => {
        if (disposed || ws !== socket) return;
        // Every further attempt would be refused: sign in again instead.
        if (isSessionEndedClose(event.code, event.reason)) return void sessionEnded();
        dispatch({ type: "disconnected" });
        timer = setTimeout(connect, reconnectDelayMs(attempt));
        attempt += 1;
      };
    };
    connect();

    return () => {
      disposed = true;
      if (timer) clearTimeout(timer);
      ws?.close(1000, "Board closed");
    };
  }, [sessionEnded, enabled]);

  return board;
}
