// Every slash-command module the bot registers. Adding a command is one import and one entry here.
import type { CommandModule } from "../src/discord/command.ts";
import { command as account } from "./account.ts";
import { command as help } from "./help.ts";
import { command as history } from "./history.ts";
import { command as listing } from "./listing.ts";
import { command as search } from "./search.ts";
import { command as stall } from "./stall.ts";
import { command as watchlist } from "./watchlist.ts";
import { command as bid } from "./bid.ts";
import { command as buy } from "./buy.ts";
import { command as buyorder } from "./buyorder.ts";
import { command as offer } from "./offer.ts";
import { command as sell } from "./sell.ts";
import { command as trades } from "./trades.ts";
import { command as watch } from "./watch.ts";
import { command as alerts } from "./alerts.ts";
import { command as portfolio } from "./portfolio.ts";
import { command as automation } from "./automation.ts";

export const commandModules: readonly CommandModule[] = [
  help,
  account,
  search,
  listing,
  history,
  stall,
  watchlist,
  buy,
  bid,
  offer,
  buyorder,
  sell,
  trades,
  watch,
  alerts,
  portfolio,
  automation,
];
