import { Link } from "react-router";
import { SocialIcon } from "./social-icon";
import { FOOTER_COLUMNS, SOCIAL_LINKS } from "./site-links";
import { SwitchboardMark } from "./switchboard-mark";
import { sectionShell } from "./styles";

// Read once when the bundle loads: a footer re-render should never change it mid-visit.
const COPYRIGHT_YEAR = new Date().getFullYear();

const linkClass = "rounded-sm text-sm text-zinc-400 transition outline-none hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400";

/** The marketing footer: every link of spec §2, the social links and the copyright line. */
export function MarketingFooter() {
  return (
    <footer data-testid="marketing-footer" className="border-t border-white/10 bg-black text-white">
      <div className={`${sectionShell} grid gap-12 py-16 lg:grid-cols-[minmax(0,1.3fr)_minmax(0,3fr)]`}>
        <div className="max-w-sm">
          <Link to="/" aria-label="Switchboard home" className="inline-flex rounded-md outline-none focus-visible:ring-2 focus-visible:ring-violet-400">
            <SwitchboardMark />
          </Link>
          <p className="mt-4 text-sm leading-6 text-zinc-400">
            AI voice assistants that answer every call, in 12 languages, and turn your contact center into a command center.
          </p>
          <ul className="mt-6 flex gap-3" aria-label="Social media">
            {SOCIAL_LINKS.map((s) => (
              <li key={s.network}>
                <a
                  href={s.href}
                  target="_blank"
                  rel="noopener noreferrer"
                  aria-label={s.label}
                  className="inline-flex size-10 items-center justify-center rounded-full border border-white/10 text-zinc-300 transition outline-none hover:border-white/30 hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400"
                >
                  <SocialIcon network={s.network} />
                </a>
              </li>
            ))}
          </ul>
        </div>

        <div className="grid grid-cols-2 gap-x-6 gap-y-10 sm:grid-cols-3 lg:grid-cols-5">
          {FOOTER_COLUMNS.map((column) => (
            <nav key={column.title} aria-label={column.title}>
              <h2 className="text-sm font-semibold text-white">{column.title}</h2>
              <ul className="mt-4 grid gap-3">
                {column.links.map((link) => (
                  <li key={link.to}>
                    <Link to={link.to} className={linkClass}>
                      {link.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          ))}
        </div>
      </div>
      <div className="border-t border-white/10">
        <div className={`${sectionShell} flex flex-col gap-2 py-6 text-sm text-zinc-400 sm:flex-row sm:items-center sm:justify-between`}>
          <p>© {COPYRIGHT_YEAR} Switchboard. All rights reserved.</p>
          <p>Voice assistants for contact centers.</p>
        </div>
      </div>
    </footer>
  );
}
