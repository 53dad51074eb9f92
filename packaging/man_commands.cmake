# cmake -DCLI=steadyscope-cli -DOUT=commands.h2m -P man_commands.cmake
# Writes a help2man include file with one section per CLI command, each the command's own --help
# as preformatted text, so `man steadyscope-cli` documents every command.
set(text "")
foreach(cmd info split gate job compare bench)
  execute_process(COMMAND ${CLI} ${cmd} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${cmd} --help exited ${rc}")
  endif()
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")  # a leading . or ' is a roff request
  string(TOUPPER "${cmd}" title)
  string(APPEND text "[COMMAND ${title}]\n.nf\n${help}.fi\n\n")
endforeach()
file(WRITE "${OUT}" "${text}")
