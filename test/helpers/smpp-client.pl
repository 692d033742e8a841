#!/usr/bin/perl
# A client application nobody here wrote the protocol code of: Net::SMPP (Debian's libnet-smpp-perl) as an ESME,
# binding to the SMPP server for client applications (server/smppServer/). It binds a transceiver, submits
# COUNT messages asking for receipts, and waits for their receipts, answering each:
#   BIND <command_status>               (and exits when it is not 0)
#   SUBMITTED <command_status> <message_id>
#   RECEIPT <id from the receipt's text> <stat>
#   DONE                                 (every receipt in) or TIMEOUT
# Usage: perl smpp-client.pl PORT SYSTEM_ID PASSWORD COUNT
use strict;
use warnings;
use Net::SMPP;

$| = 1;
my ($port, $system_id, $password, $count) = @ARGV;
my ($smpp, $resp) = Net::SMPP->new_transceiver('127.0.0.1', port => $port, system_id => $system_id,
                                               password => $password, smpp_version => 0x34, timeout => 10);
die "could not connect\n" unless $smpp;
print "BIND $resp->{status}\n";
exit 0 if $resp->{status} != 0;

for my $i (1 .. $count) {
  my $r = $smpp->submit_sm(source_addr_ton => 5, source_addr => 'ACME', dest_addr_ton => 1, dest_addr_npi => 1,
                           destination_addr => '14155550123', short_message => "from Net::SMPP $i",
                           registered_delivery => 1);
  print "SUBMITTED $r->{status} " . ($r->{message_id} // '') . "\n";
}

my $receipts = 0;
local $SIG{ALRM} = sub { print "TIMEOUT\n"; exit 1 };
alarm 30;
while ($receipts < $count) {
  my $pdu = $smpp->read_pdu() or last;
  if ($pdu->{cmd} == 0x00000005) {    # deliver_sm
    $smpp->deliver_sm_resp(message_id => '', seq => $pdu->{seq});
    my ($id) = $pdu->{short_message} =~ /\bid:(\S+)/;
    my ($stat) = $pdu->{short_message} =~ /\bstat:(\w+)/;
    print "RECEIPT $id $stat\n";
    $receipts++;
  } elsif ($pdu->{cmd} == 0x00000015) {    # enquire_link
    $smpp->enquire_link_resp(seq => $pdu->{seq});
  }
}
$smpp->unbind();
print "DONE\n";
