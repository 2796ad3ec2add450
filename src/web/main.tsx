import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { ApiError } from "@/lib/api";
import { preloadRoute } from "./app/route-preload";
import { AppRoutes } from "./app/router";
import "./index.css";
import { queryKeys } from "@/lib/query-keys";

// A 401 anywhere means the session ended on the server: forget the user so the guards send them to /login.
// A role refusal may mean an admin changed the role since the page read it: read it again.
const onError = (err: unknown) => {
  if (err instanceof ApiError && err.status === 401) queryClient.setQueryData(queryKeys.session, null);
  if (err instanceof ApiError && err.status === 403 && err.code === "forbidden") void queryClient.invalidateQueries({ queryKey: queryKeys.organization });
};
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2, refetchOnWindowFocus: false } },
});

// An app page's session check, data and chunks start now, alongside this bundle's own work.
preloadRoute(window.location.pathname);

// Only what every page needs is loaded here. The toast outlet is fetched on first use (see
// app/route-frame.tsx) and tooltips bring their own provider, so neither weighs on the entry chunk.
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
