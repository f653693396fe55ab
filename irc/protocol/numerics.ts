/**
 * The numeric replies Parley reads or writes, by name (RFC 1459/2812, the IRCv3 specifications and
 * the names servers give them), so code says `RPL_ENDOFNAMES` and never `"366"`. Values are the
 * three digits as they appear on the wire.
 */

// Registration
export const RPL_WELCOME = "001";
export const RPL_YOURHOST = "002";
export const RPL_CREATED = "003";
export const RPL_MYINFO = "004";
export const RPL_ISUPPORT = "005";

// TRACE (RFC 2812)
export const RPL_TRACELINK = "200";
export const RPL_TRACECONNECTING = "201";
export const RPL_TRACEHANDSHAKE = "202";
export const RPL_TRACEUNKNOWN = "203";
export const RPL_TRACEOPERATOR = "204";
export const RPL_TRACEUSER = "205";
export const RPL_TRACESERVER = "206";
export const RPL_TRACESERVICE = "207";
export const RPL_TRACENEWTYPE = "208";
export const RPL_TRACECLASS = "209";
export const RPL_TRACERECONNECT = "210";
export const RPL_TRACELOG = "261";
export const RPL_TRACEEND = "262";

// STATS
export const RPL_STATSLINKINFO = "211";
export const RPL_STATSCOMMANDS = "212";
export const RPL_STATSCLINE = "213";
export const RPL_STATSNLINE = "214";
export const RPL_STATSILINE = "215";
export const RPL_STATSKLINE = "216";
export const RPL_STATSQLINE = "217";
export const RPL_STATSYLINE = "218";
export const RPL_ENDOFSTATS = "219";
export const RPL_UMODEIS = "221";
export const RPL_STATSVLINE = "240";
export const RPL_STATSLLINE = "241";
export const RPL_STATSUPTIME = "242";
export const RPL_STATSOLINE = "243";
export const RPL_STATSHLINE = "244";
export const RPL_STATSPING = "246";
export const RPL_STATSBLINE = "247";
export const RPL_STATSDEFINE = "248";
export const RPL_STATSDEBUG = "249";
export const RPL_STATSCONN = "250";

// LUSERS, ADMIN
export const RPL_LUSERCLIENT = "251";
export const RPL_LUSEROP = "252";
export const RPL_LUSERUNKNOWN = "253";
export const RPL_LUSERCHANNELS = "254";
export const RPL_LUSERME = "255";
export const RPL_ADMINME = "256";
export const RPL_ADMINLOC1 = "257";
export const RPL_ADMINLOC2 = "258";
export const RPL_ADMINEMAIL = "259";
export const RPL_TRYAGAIN = "263";
export const RPL_LOCALUSERS = "265";
export const RPL_GLOBALUSERS = "266";

// SERVLIST
export const RPL_SERVLIST = "234";
export const RPL_SERVLISTEND = "235";

// WHOIS, WHOWAS, away, ISON, USERHOST
export const RPL_WHOISCERTFP = "276";
export const RPL_AWAY = "301";
export const RPL_USERHOST = "302";
export const RPL_ISON = "303";
export const RPL_UNAWAY = "305";
export const RPL_NOWAWAY = "306";
export const RPL_WHOISREGNICK = "307";
export const RPL_WHOISUSER = "311";
export const RPL_WHOISSERVER = "312";
export const RPL_WHOISOPERATOR = "313";
export const RPL_WHOWASUSER = "314";
export const RPL_ENDOFWHO = "315";
export const RPL_WHOISIDLE = "317";
export const RPL_ENDOFWHOIS = "318";
export const RPL_WHOISCHANNELS = "319";
export const RPL_WHOISSPECIAL = "320";
export const RPL_WHOISACCOUNT = "330";
export const RPL_WHOISBOT = "335";
export const RPL_WHOISACTUALLY = "338";
export const RPL_ENDOFWHOWAS = "369";
export const RPL_WHOISHOST = "378";
export const RPL_WHOISMODES = "379";
export const RPL_WHOISSECURE = "671";

// LIST, channels, topics, invites, lists of masks
export const RPL_LISTSTART = "321";
export const RPL_LIST = "322";
export const RPL_LISTEND = "323";
export const RPL_CHANNELMODEIS = "324";
export const RPL_CREATIONTIME = "329";
export const RPL_NOTOPIC = "331";
export const RPL_TOPIC = "332";
export const RPL_TOPICWHOTIME = "333";
export const RPL_INVITING = "341";
export const RPL_SUMMONING = "342";
export const RPL_INVITELIST = "346";
export const RPL_ENDOFINVITELIST = "347";
export const RPL_EXCEPTLIST = "348";
export const RPL_ENDOFEXCEPTLIST = "349";
export const RPL_BANLIST = "367";
export const RPL_ENDOFBANLIST = "368";

// WHO, NAMES, server queries, MOTD
export const RPL_VERSION = "351";
export const RPL_WHOREPLY = "352";
export const RPL_NAMREPLY = "353";
export const RPL_WHOSPCRPL = "354";
export const RPL_LINKS = "364";
export const RPL_ENDOFLINKS = "365";
export const RPL_ENDOFNAMES = "366";
export const RPL_INFO = "371";
export const RPL_MOTD = "372";
export const RPL_INFOSTART = "373";
export const RPL_ENDOFINFO = "374";
export const RPL_MOTDSTART = "375";
export const RPL_ENDOFMOTD = "376";
export const RPL_YOUREOPER = "381";
export const RPL_REHASHING = "382";
export const RPL_TIME = "391";
export const RPL_USERSSTART = "392";
export const RPL_USERS = "393";
export const RPL_ENDOFUSERS = "394";
export const RPL_NOUSERS = "395";

// Errors
export const ERR_UNKNOWNERROR = "400";
export const ERR_NOSUCHNICK = "401";
export const ERR_NOSUCHSERVER = "402";
export const ERR_NOSUCHCHANNEL = "403";
export const ERR_CANNOTSENDTOCHAN = "404";
export const ERR_TOOMANYCHANNELS = "405";
export const ERR_WASNOSUCHNICK = "406";
export const ERR_TOOMANYTARGETS = "407";
export const ERR_INVALIDCAPCMD = "410";
export const ERR_NORECIPIENT = "411";
export const ERR_NOTEXTTOSEND = "412";
export const ERR_TOOMANYMATCHES = "416";
export const ERR_INPUTTOOLONG = "417";
export const ERR_UNKNOWNCOMMAND = "421";
export const ERR_NOMOTD = "422";
export const ERR_NOADMININFO = "423";
export const ERR_ERRONEUSNICKNAME = "432";
export const ERR_NICKNAMEINUSE = "433";
export const ERR_NICKCOLLISION = "436";
export const ERR_UNAVAILRESOURCE = "437";
/** A nick change refused while banned in a channel (charybdis, solanum). */
export const ERR_BANNICKCHANGE = "435";
/** A nick change refused as too soon after the last (ircu, hybrid, solanum). */
export const ERR_NICKTOOFAST = "438";
export const ERR_USERNOTINCHANNEL = "441";
export const ERR_NOTONCHANNEL = "442";
export const ERR_USERONCHANNEL = "443";
export const ERR_SUMMONDISABLED = "445";
export const ERR_USERSDISABLED = "446";
export const ERR_NOTREGISTERED = "451";
export const ERR_NEEDMOREPARAMS = "461";
export const ERR_ALREADYREGISTERED = "462";
export const ERR_PASSWDMISMATCH = "464";
export const ERR_YOUREBANNEDCREEP = "465";
export const ERR_KEYSET = "467";
/** A JOIN forwarded to another channel (the channel's +f on solanum and charybdis). */
export const ERR_LINKCHANNEL = "470";
export const ERR_CHANNELISFULL = "471";
export const ERR_INVITEONLYCHAN = "473";
export const ERR_BANNEDFROMCHAN = "474";
export const ERR_BADCHANNELKEY = "475";
export const ERR_BADCHANMASK = "476";
/** RFC 2812's name; most servers send it for a channel that needs a registered nick (+r). */
export const ERR_NOCHANMODES = "477";
export const ERR_BANLISTFULL = "478";
export const ERR_BADCHANNAME = "479";
/** Also ERR_THROTTLE or ERR_NOULINE on some servers: a refusal either way. */
export const ERR_CANNOTKNOCK = "480";
export const ERR_NOPRIVILEGES = "481";
export const ERR_CHANOPRIVSNEEDED = "482";
export const ERR_CANTKILLSERVER = "483";
/** A channel for TLS users only (+z on InspIRCd and UnrealIRCd). */
export const ERR_SECUREONLYCHAN = "489";
export const ERR_NOOPERHOST = "491";
export const ERR_UMODEUNKNOWNFLAG = "501";
export const ERR_USERSDONTMATCH = "502";
export const ERR_HELPNOTFOUND = "524";
export const ERR_CANNOTSENDTOUSER = "531";

// HELP, KNOCK, MONITOR (IRCv3)
export const RPL_HELPSTART = "704";
export const RPL_HELPTXT = "705";
export const RPL_ENDOFHELP = "706";
export const RPL_KNOCK = "710";
export const RPL_KNOCKDLVR = "711";
export const ERR_TOOMANYKNOCK = "712";
export const ERR_CHANOPEN = "713";
export const ERR_KNOCKONCHAN = "714";
export const RPL_MONONLINE = "730";
export const RPL_MONOFFLINE = "731";
export const RPL_MONLIST = "732";
export const RPL_ENDOFMONLIST = "733";
export const ERR_MONLISTFULL = "734";
/** An operator's command refused for want of a privilege (solanum, charybdis). */
export const ERR_NOPRIVS = "723";

// SASL (IRCv3)
export const RPL_LOGGEDIN = "900";
export const RPL_LOGGEDOUT = "901";
export const ERR_NICKLOCKED = "902";
export const RPL_SASLSUCCESS = "903";
export const ERR_SASLFAIL = "904";
export const ERR_SASLTOOLONG = "905";
export const ERR_SASLABORTED = "906";
export const ERR_SASLALREADY = "907";
export const RPL_SASLMECHS = "908";
