import { BookOpen, Bot, LogOut, Megaphone, PhoneCall, Phone, Radio, Settings, Wrench } from "lucide-react";
import { Suspense, useState } from "react";
import { Link, NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { BrandLogo } from "@/components/brand-logo";
import {
  Sidebar,
  SidebarContent,
  SidebarFooter,
  SidebarGroup,
  SidebarHeader,
  SidebarInset,
  SidebarMenu,
  SidebarMenuButton,
  SidebarMenuItem,
  SidebarMenuSkeleton,
  SidebarProvider,
  SidebarTrigger,
  readSidebarCookie,
} from "@/components/ui/sidebar";
import { toastFailure } from "@/components/ui/sonner";
import { Spinner } from "@/components/ui/spinner";
import { usePageTitle } from "@/hooks/use-page-title";
import { useSession, useSignOut } from "@/lib/session";
import { useCan, useMembership, useRoleChangeNotice } from "@/lib/use-membership";
import { OrganizationSwitcher } from "./organization-switcher";

const NAV = [
  { title: "Assistants", to: "/assistants", icon: Bot },
  { title: "Phone Numbers", to: "/phone-numbers", icon: Phone },
  { title: "Calls", to: "/calls", icon: PhoneCall },
  { title: "Campaigns", to: "/campaigns", icon: Megaphone },
  // The board is for supervisors and up: a viewer's socket would be refused.
  { title: "Live", to: "/live", icon: Radio, permission: "supervise" },
  { title: "Tools", to: "/tools", icon: Wrench },
  { title: "Knowledge", to: "/knowledge", icon: BookOpen },
] as const;

/** The page's name for the browser tab: the navigation's, Settings', or none (a page of its own names itself). */
function pageTitle(pathname: string): string | undefined {
  if (pathname.startsWith("/settings")) return "Settings";
  return NAV.find((item) => pathname.startsWith(item.to))?.title;
}

/** A number that changes when the organisation does (not when it is first known): the page's key. */
function useOrganizationGeneration(organizationId: string | undefined): number {
  const [seen, setSeen] = useState(organizationId);
  const [generation, setGeneration] = useState(0);
  if (organizationId && organizationId !== seen) {
    if (seen) setGeneration(generation + 1);
    setSeen(organizationId);
  }
  return generation;
}

/** The signed-in shell: side navigation beside the page (spec §2 "Side navigation"). */
export function AppLayout() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const { data: user, isPending } = useSession();
  const membership = useMembership();
  const maySupervise = useCan("supervise");
  useRoleChangeNotice();
  const pageKey = useOrganizationGeneration(membership.data?.organization.id);
  const nav = NAV.filter((item) => !("permission" in item) || maySupervise);
  usePageTitle(pageTitle(pathname));

  const logOut = async () => {
    try {
      await signOut();
      navigate("/login");
    } catch (err) {
      toastFailure("Log out failed", err);
    }
  };

  return (
    <SidebarProvider defaultOpen={readSidebarCookie() ?? true}>
      <Sidebar mobileTitle="Switchboard navigation">
        <SidebarHeader>
          <Link to="/assistants" className="flex h-10 items-center px-1.5" aria-label="Switchboard">
            <BrandLogo className="[&>span]:group-data-[state=collapsed]:hidden" />
          </Link>
          <OrganizationSwitcher />
        </SidebarHeader>
        <SidebarContent>
          <SidebarGroup>
            <SidebarMenu>
              {isPending || membership.isPending
                ? NAV.map((item) => (
                    <SidebarMenuItem key={item.to}>
                      <SidebarMenuSkeleton showIcon />
                    </SidebarMenuItem>
                  ))
                : nav.map((item) => (
                    <SidebarMenuItem key={item.to}>
                      <SidebarMenuButton asChild isActive={pathname.startsWith(item.to)} tooltip={item.title}>
                        <NavLink to={item.to}>
                          <item.icon />
                          <span>{item.title}</span>
                        </NavLink>
                      </SidebarMenuButton>
                    </SidebarMenuItem>
                  ))}
            </SidebarMenu>
          </SidebarGroup>
        </SidebarContent>
        <SidebarFooter>
          <SidebarMenu>
            <SidebarMenuItem>
              <SidebarMenuButton asChild isActive={pathname.startsWith("/settings")} tooltip="Settings">
                <NavLink to="/settings">
                  <Settings />
                  <span>Settings</span>
                </NavLink>
              </SidebarMenuButton>
            </SidebarMenuItem>
            <SidebarMenuItem>
              <SidebarMenuButton onClick={logOut} tooltip="Log out">
                <LogOut />
                <span>Log out</span>
              </SidebarMenuButton>
            </SidebarMenuItem>
          </SidebarMenu>
          {user && (
            <p className="truncate px-2 pb-1 text-xs text-muted-foreground group-data-[state=collapsed]:hidden" title={user.email}>
              {user.name}
            </p>
          )}
        </SidebarFooter>
      </Sidebar>
      <SidebarInset>
        <header className="flex h-14 items-center gap-2 border-b px-4">
          <SidebarTrigger />
        </header>
        <div className="flex-1 p-4 md:p-6">
          <Suspense
            fallback={
              <div className="flex justify-center py-16">
                <Spinner />
              </div>
            }
          >
            {/* A switch of organisation remounts the page: nothing of the one left behind stays open. */}
            <Outlet key={pageKey} />
          </Suspense>
        </div>
      </SidebarInset>
    </SidebarProvider>
  );
}
