from ctxmode._entry import main

main()
